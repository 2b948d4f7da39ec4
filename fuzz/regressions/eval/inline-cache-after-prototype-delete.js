class A { m() { return 1; } }
const a = new A();
const call = (x) => x.m();
call(a); call(a);
delete A.prototype.m;
try { call(a); } catch (e) {}
const P = { u: 1, v: 2 };
const o = Object.create(P);
const read = (x) => x.v;
read(o); read(o);
delete P.u;
read(o);
