{
const s = 'Ünïcödé 𝄞 text'; [s.normalize('NFD').length, s.at(-1), s.padStart(20, '*'), [...s].length, s.toUpperCase(), s.localeCompare('a'), String.raw`a\n${1}`, s.replaceAll('t', 'T'), s.isWellFormed(), '\ud800'.toWellFormed(), encodeURIComponent(s)]
}
