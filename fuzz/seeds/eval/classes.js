{
class A { #x = 1; static s = 2; get x() { return this.#x } set x(v) { this.#x = v } static { this.t = 3 } }
class B extends A { constructor() { super(); this.y = super.x } m() { return super.x + this.y } }
const b = new B(); b.x = 5; [b.m(), A.s, A.t, b instanceof A, Object.getOwnPropertyNames(B.prototype)]
}
