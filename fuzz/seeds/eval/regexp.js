{
const re = /(?<y>\d{4})-(?<m>\d\d)/gu; const s = '2024-01 and 2025-12';
[[...s.matchAll(re)].map((m) => m.groups.y), s.replace(re, '$<m>/$<y>'), /a.c/s.test('a\nc'), 'aBc'.split(/b/i), /\//.source, new RegExp('[/]', 'v').flags]
}
