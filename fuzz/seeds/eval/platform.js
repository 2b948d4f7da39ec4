{
[btoa('hi'), atob('aGk='), new TextEncoder().encode('é').length, new TextDecoder().decode(new Uint8Array([0xe2, 0x82, 0xac])), crypto.getRandomValues(new Uint8Array(4)).length, typeof performance.now(), Date.now() > 0, console.log('x', { a: 1 }), structuredClone([1, { a: 2 }])]
}
