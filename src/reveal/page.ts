// The reveal page: static, the same for everyone, and holding nothing secret. The token stays in the
// URL fragment (never sent to a server) until the agent presses Reveal; the script then sends it in a
// POST body. No inline script or style, so the Content-Security-Policy can forbid them.

export const REVEAL_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>Order Desk · image key</title>
<link rel="stylesheet" href="/keys/reveal.css">
<script src="/keys/reveal.js" defer></script>
</head>
<body>
<main>
  <h1>Order Desk · image key</h1>
  <p id="intro">This page opens one image key, once, for you. Make sure nobody else can see your screen, then press <strong>Reveal</strong>.</p>
  <button id="reveal" type="button" disabled>Reveal</button>
  <p id="status" role="status"></p>
  <figure id="result" hidden>
    <img id="key-image" alt="The image key">
    <figcaption><a id="download" download="order-key">Download</a> · Close this tab when you are done: the link will not open again.</figcaption>
  </figure>
</main>
</body>
</html>
`;

export const REVEAL_PAGE_JS = `'use strict';
(function () {
  var token = location.hash.slice(1);
  // Keep the token out of the address bar (and so out of history and screenshots) once read.
  if (token) history.replaceState(null, '', location.pathname);
  // What this tab did with its link, kept across a reload (never the token): a reload then says
  // what happened instead of "incomplete". sessionStorage may be refused (private modes): then not.
  function remember(what) {
    try { sessionStorage.setItem('order-desk-reveal', what); } catch (e) { /* not kept */ }
  }
  function remembered() {
    try { return sessionStorage.getItem('order-desk-reveal') || ''; } catch (e) { return ''; }
  }
  var button = document.getElementById('reveal');
  var status = document.getElementById('status');
  var intro = document.getElementById('intro');
  // Messages mark commands as \`code\`, as in Slack: shown as code here, never with the backticks.
  function appendText(parent, text) {
    String(text).split('\u0060').forEach(function (part, index) {
      if (!part) return;
      if (index % 2 === 1) {
        var code = document.createElement('code');
        code.textContent = part;
        parent.appendChild(code);
      } else {
        parent.appendChild(document.createTextNode(part));
      }
    });
  }
  function show(title, message) {
    status.textContent = '';
    var strong = document.createElement('strong');
    appendText(strong, title);
    status.appendChild(strong);
    appendText(status, ' ' + message);
  }
  // A refusal replaces the invitation to press Reveal: there is nothing left to press.
  function refuse(title, message) {
    intro.hidden = true;
    button.hidden = true;
    show(title, message);
  }
  if (!token) {
    var before = remembered();
    if (before === 'shown')
      refuse('The key was already shown on this page.', 'A link opens its key once, so reloading cannot show it again. To see it again, run \u0060/order-keys\u0060 for the order in Slack and press View image key on the new message.');
    else if (before === 'opened')
      refuse('This page was reloaded, and the key was not shown on it.', 'Open the link again from the View image key button in Slack; if it can no longer open, run \u0060/order-keys\u0060 for the order again for a new one.');
    else
      refuse('This link is incomplete.', 'Open it again from the button in Slack, or run \u0060/order-keys\u0060 for the order again.');
    return;
  }
  remember('opened');
  button.disabled = false;
  button.addEventListener('click', function () {
    button.disabled = true;
    status.textContent = 'Asking Order Desk for the key…';
    fetch(location.pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: token }),
      cache: 'no-store',
      credentials: 'omit',
      referrerPolicy: 'no-referrer'
    }).then(function (response) {
      var type = response.headers.get('content-type') || '';
      if (response.ok && type.indexOf('image/') === 0) {
        return response.blob().then(function (blob) {
          token = '';
          remember('shown');
          var url = URL.createObjectURL(blob);
          document.getElementById('key-image').src = url;
          var download = document.getElementById('download');
          download.href = url;
          download.download = 'order-key.' + (type.split('/')[1] || 'png');
          document.getElementById('result').hidden = false;
          intro.hidden = true;
          button.hidden = true;
          status.textContent = '';
        });
      }
      return response.json().then(function (body) {
        token = '';
        refuse(body.title || 'The key could not be revealed.', (body.message || '') + (body.traceId ? ' (trace ID ' + body.traceId + ')' : ''));
      });
    }).catch(function () {
      button.disabled = false;
      show('Order Desk could not be reached.', 'Check your connection and press Reveal again.');
    });
  });
})();
`;

export const REVEAL_PAGE_CSS = `body{font:16px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,sans-serif;margin:0;background:#f8f8fa;color:#1d1c1d}
main{max-width:40rem;margin:4rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{font-size:1.25rem;margin-top:0}
button{font:inherit;padding:.5rem 1.25rem;border:0;border-radius:4px;background:#007a5a;color:#fff;cursor:pointer}
button[disabled]{background:#9aa;cursor:default}
#status strong{display:block}
code{font:.9em/1.4 Menlo,Consolas,monospace;background:#f3f3f5;border:1px solid #ddd;border-radius:3px;padding:0 .25em}
figure{margin:1rem 0 0}
img{max-width:100%;border:1px solid #ddd}
`;
