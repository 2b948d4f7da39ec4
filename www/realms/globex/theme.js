// Globex's house style. Different realm, different look: each card's CSS stays in its
// own shadow root.
import { css } from 'https://cardstack.com/base/card-api';

export const theme = css`
  .card {
    --gx: #fb923c;
    --gx-2: #f97316;
    --gx-ink: #2a1204;
    --gx-bg: #1a130e;
    --gx-line: #3a2a1f;
    --gx-text: #fbeee4;
    --gx-muted: #b59a86;
    color: var(--gx-text);
    font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  }
  code { font: 12.5px/1.4 ui-monospace, "SF Mono", Menlo, Consolas, monospace; color: #fed7aa; }
  button {
    font: inherit; cursor: pointer; border-radius: 8px; border: 1px solid var(--gx-line);
    background: #231910; color: var(--gx-text); padding: 6px 14px; font-weight: 600;
  }
  button:hover { border-color: var(--gx); }
  button:focus-visible { outline: 2px solid var(--gx); outline-offset: 2px; }
`;
