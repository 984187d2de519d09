// The sandbox page's calls to its server (/sandbox/api/…): JSON in, JSON out; a refusal becomes an
// Error with the server's message. Shared by the page and the workflow step panel.

/** GET `path`, or POST `body` as JSON; resolves with the answer, rejects with the server's error. */
export async function api(path, body) {
  const response = await fetch(
    `/sandbox/api/${path}`,
    body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error ?? `HTTP ${response.status}`);
  return data;
}
