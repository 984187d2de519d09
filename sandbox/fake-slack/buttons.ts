// Finding the button a person would click, in a message's blocks or on a Home tab.

export interface FoundButton {
  value: string | undefined;
  blockId: string;
  /** A menu's option is chosen rather than a button clicked (a static_select). */
  menu?: { text: string } | undefined;
}

/** Finds a button by action_id (and value, when given) in blocks: actions elements and accessories. */
export function findButton(blocks: unknown[], actionId: string, value?: string): FoundButton | undefined {
  for (const block of blocks as Array<Record<string, unknown>>) {
    const candidates = [
      ...((block.elements as Array<Record<string, unknown>> | undefined) ?? []),
      ...(block.accessory ? [block.accessory as Record<string, unknown>] : []),
    ];
    for (const element of candidates) {
      if (
        element.type === 'button' &&
        element.action_id === actionId &&
        (value === undefined || element.value === value)
      ) {
        return { value: element.value as string | undefined, blockId: String(block.block_id ?? 'block') };
      }
      // A menu of options: the option with this value (the first when none is given) is chosen.
      if (element.type === 'static_select' && element.action_id === actionId) {
        const options = (element.options as Array<{ text: { text: string }; value: string }>) ?? [];
        const option = options.find((candidate) => value === undefined || candidate.value === value);
        if (option)
          return {
            value: option.value,
            blockId: String(block.block_id ?? 'block'),
            menu: { text: option.text.text },
          };
      }
    }
  }
  return undefined;
}
