// A host app using the package exactly as a user would: a bare import, bundled by Vite.
import { Compartment, SandboxError } from 'isolated-realm';

const out = document.getElementById('out');

async function run() {
  const c = await Compartment.create({ principal: 'https://cards.example/' });
  const [two, map] = await c.eval("[1 + 1, new Map([['k', 'v']])]");
  await c.dispose();

  const slow = await Compartment.create({ principal: 'https://cards.example/', limits: { timeoutMs: 200 } });
  let runaway = null;
  try {
    await slow.eval('while (true) {}');
    runaway = { threw: false };
  } catch (e) {
    runaway = { threw: true, isSandboxError: e instanceof SandboxError, code: e.code, limit: e.limit };
  }
  // The compartment is still usable after the limit stopped the runaway.
  const after = await slow.eval('40 + 2');
  await slow.dispose();

  return { two, isMap: map instanceof Map, entries: [...map], runaway, after };
}

run().then(
  (result) => {
    out.textContent = JSON.stringify(result);
    out.dataset.state = 'done';
  },
  (e) => {
    out.textContent = JSON.stringify({ error: String((e && e.stack) || e), code: e && e.code });
    out.dataset.state = 'failed';
  },
);
