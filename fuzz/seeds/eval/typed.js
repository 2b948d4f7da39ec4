{
const buf = new ArrayBuffer(16, { maxByteLength: 64 }); const u8 = new Uint8Array(buf); const dv = new DataView(buf);
dv.setFloat64(0, Math.PI); buf.resize(32); u8.set([1, 2, 3], 8); [Array.from(u8.subarray(0, 12)), new BigInt64Array(buf, 8, 1)[0], u8.length, new Float32Array([1.5, NaN]).map((x) => x * 2)]
}
