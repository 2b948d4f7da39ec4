// Acme's house style, shared by every Acme card through a realm-relative import.
// It only ever reaches the shadow root of an Acme card: the host page is out of its reach.
import { css } from 'https://cardstack.com/base/card-api';

export const theme = css`
  .card {
    --acme: #2dd4bf;
    --acme-2: #14b8a6;
    --acme-ink: #042f2e;
    --acme-bg: #0d1b1e;
    --acme-line: #1f3a3d;
    --acme-text: #dff7f3;
    --acme-muted: #86a9a4;
    color: var(--acme-text);
    font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  }
  button {
    font: inherit; cursor: pointer; border-radius: 9px; border: 1px solid var(--acme-line);
    background: #102629; color: var(--acme-text); padding: 6px 14px; font-weight: 600;
    transition: background 0.12s, border-color 0.12s, transform 0.05s;
  }
  button:hover { border-color: var(--acme); background: #123236; }
  button:active { transform: translateY(1px); }
  button:focus-visible, input:focus-visible { outline: 2px solid var(--acme); outline-offset: 2px; }
`;
