{
const o = JSON.parse('{"a":[1,{"b":null}],"c":"\\u0041","d":1e400}', (k, v) => (typeof v === 'number' ? v + 1 : v));
[o, JSON.stringify(o, null, 2), JSON.stringify({ toJSON() { return [new Date(0)] } }), JSON.stringify('\ud800')]
}
