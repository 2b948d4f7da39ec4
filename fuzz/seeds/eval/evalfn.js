{
var x = 1; function f() { var x = 2; return [eval('x'), (0, eval)('x'), new Function('return typeof x')(), Function('a', 'b', 'return a + b')(1, 2)] }
with ({ x: 3, [Symbol.unscopables]: { y: true } }) { var r = [x, typeof y] } [f(), r]
}
