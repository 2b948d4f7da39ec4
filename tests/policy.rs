//! The module policy: every confused-deputy trick is denied before anything is requested,
//! and malformed or too-broad configuration is refused at set-up.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use isolated_realm::ErrorCode;
use isolated_realm::modules::policy::{Grant, Policy, integrity_of};
use wasm_bindgen_test::wasm_bindgen_test;

const OWN: &str = "https://realm.example/realm-a/";
const READABLE: &str = "https://realm.example/shared/";
const PACKAGE: &str = "https://cdn.example/lib@1.2.3/index.js";
const REFERRER: &str = "https://realm.example/realm-a/cards/card.js";

fn policy() -> Policy {
    Policy::new(
        &[OWN],
        &[READABLE],
        &[(PACKAGE, &integrity_of(b"export default 1"))],
    )
    .unwrap()
}

const DENIED: &[(&str, &str)] = &[
    (
        "https://attacker.example/collect?beacon=1",
        "a literal attacker URL",
    ),
    ("//attacker.example/x.js", "a scheme-relative URL"),
    (
        "https://realm.example@evil.example/realm-a/x.js",
        "userinfo that moves the host",
    ),
    (
        "https://user:pw@realm.example/realm-a/x.js",
        "credentials in the URL",
    ),
    (
        "https://realm.example.evil.example/realm-a/x.js",
        "a look-alike host",
    ),
    (
        "https://realm.example/realm-a-evil/x.js",
        "a sibling path sharing the prefix text",
    ),
    (
        "https://realm.example/Realm-A/x.js",
        "a case variant of the path",
    ),
    (
        "https://realm.example/realm-a/..%2Fother/x.js",
        "an encoded slash",
    ),
    (
        "https://realm.example/realm-a/%2e%2e/other/x.js",
        "encoded dot segments",
    ),
    (
        "https://realm.example/realm-a/..%5Cother/x.js",
        "an encoded backslash",
    ),
    ("../../other/x.js", "relative dot segments out of the realm"),
    ("/other/x.js", "an absolute path outside the realm"),
    (
        "http://realm.example/realm-a/x.js",
        "another scheme, so another origin",
    ),
    ("https://realm.example:8443/realm-a/x.js", "another port"),
    ("data:text/javascript,export default 1", "a data: URL"),
    ("blob:https://realm.example/uuid", "a blob: URL"),
    ("javascript:alert(1)", "a javascript: URL"),
    ("lodash", "a bare specifier that is not trusted"),
    (
        "https://réalm.example/realm-a/x.js",
        "a non-ASCII host (IDNA is ASCII-only)",
    ),
    (
        "https://ｒｅａｌｍ.example/realm-a/x.js",
        "a full-width host that full IDNA would map onto the own realm",
    ),
    (
        "https://xn--zz.example/realm-a/x.js",
        "a punycode label that does not decode",
    ),
    (
        "https://cdn.example/lib@1.2.4/index.js",
        "a package version that is not pinned",
    ),
    (
        "https://cdn.example/lib@1.2.3/index.js/../evil.js",
        "a path escaping a pinned package",
    ),
];

#[wasm_bindgen_test(unsupported = test)]
fn confused_deputy_tricks_are_denied() {
    let p = policy();
    for (specifier, what) in DENIED {
        let e = p.resolve(specifier, Some(REFERRER)).expect_err(what);
        assert_eq!(e.code, ErrorCode::PolicyDenied, "{what}: {e}");
        assert_eq!(e.details.path.as_deref(), Some(*specifier), "{what}");
        assert!(
            e.details.guest_message.is_some(),
            "{what}: a reason is given"
        );
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn allowed_modules_resolve_to_canonical_urls_with_the_right_grant() {
    let p = policy();
    let cases: &[(&str, &str, Grant)] = &[
        (
            "./util.js",
            "https://realm.example/realm-a/cards/util.js",
            Grant::Own { realm: OWN.into() },
        ),
        (
            "../lib/x.js#frag",
            "https://realm.example/realm-a/lib/x.js",
            Grant::Own { realm: OWN.into() },
        ),
        (
            "HTTPS://REALM.EXAMPLE/realm-a/y.js",
            "https://realm.example/realm-a/y.js",
            Grant::Own { realm: OWN.into() },
        ),
        (
            "https://realm.example:443/realm-a/./z.js",
            "https://realm.example/realm-a/z.js",
            Grant::Own { realm: OWN.into() },
        ),
        (
            "/shared/theme.js",
            "https://realm.example/shared/theme.js",
            Grant::Readable {
                realm: READABLE.into(),
            },
        ),
    ];
    for (specifier, url, grant) in cases {
        let r = p
            .resolve(specifier, Some(REFERRER))
            .unwrap_or_else(|e| panic!("{specifier}: {e}"));
        assert_eq!((r.url.as_str(), &r.grant), (*url, grant), "{specifier}");
        assert!(
            r.credentials(),
            "{specifier}: own and readable realms get credentials"
        );
    }
    let pkg = p.resolve(PACKAGE, Some(REFERRER)).unwrap();
    assert!(matches!(pkg.grant, Grant::Package { .. }));
    assert!(!pkg.credentials(), "packages never get credentials");
}

#[wasm_bindgen_test(unsupported = test)]
fn package_integrity_is_checked() {
    let p = policy();
    let pkg = p.resolve(PACKAGE, None).unwrap();
    assert!(p.verify(&pkg, b"export default 1").is_ok());
    let e = p.verify(&pkg, b"export default 2").expect_err("mismatch");
    assert_eq!(e.code, ErrorCode::PolicyDenied);
}

#[wasm_bindgen_test(unsupported = test)]
fn host_names_must_be_ascii_and_punycode_ones_are_accepted() {
    // The IDNA back end is the stub, pinned in Cargo.toml for the wasm's size.
    let e = Policy::new(&["https://bücher.example/x/"], &[], &[]).expect_err("non-ASCII");
    assert!(e.message.contains("punycode"), "{e}");
    let p = Policy::new(&["https://xn--bcher-kva.example/x/"], &[], &[]).unwrap();
    let r = p
        .resolve("./y.js", Some("https://xn--bcher-kva.example/x/card.js"))
        .unwrap();
    assert_eq!(r.url, "https://xn--bcher-kva.example/x/y.js");
    let e = p
        .resolve("https://bücher.example/x/y.js", None)
        .expect_err("non-ASCII");
    assert_eq!(e.code, ErrorCode::PolicyDenied);
    assert!(e.message.contains("not ASCII"), "{e}");
    // An ASCII host that is still not a host name is told apart from a non-ASCII one.
    for bad in [
        "https://xn--zz.example/x/y.js",
        "https://a^b.example/x/y.js",
    ] {
        let e = p.resolve(bad, None).expect_err(bad);
        assert_eq!(e.code, ErrorCode::PolicyDenied, "{bad}");
        assert!(e.message.contains("invalid host name"), "{bad}: {e}");
    }
    let e = Policy::new(&["https://xn--zz.example/x/"], &[], &[]).expect_err("undecodable");
    assert_eq!(e.code, ErrorCode::InvalidOptions);
    assert!(e.message.contains("invalid host name"), "{e}");
}

#[wasm_bindgen_test(unsupported = test)]
fn malformed_or_too_broad_configuration_is_refused() {
    for bad in [
        "",
        "https://",
        "not a url",
        "https://realm.example/realm-a",
        "ftp://realm.example/x/",
        "https://u:p@realm.example/x/",
        "https://realm.example/x/?q=1",
        "javascript:alert(1)/",
        "https://bücher.example/x/",
    ] {
        let e = Policy::new(&[bad], &[], &[]).expect_err(bad);
        assert_eq!(e.code, ErrorCode::InvalidOptions, "{bad}");
        assert_eq!(e.details.option.as_deref(), Some("modules.realms"), "{bad}");
    }
    for (url, integrity) in [
        ("http://cdn.example/x.js", "sha384-AAAA"),
        (PACKAGE, "sha256-abc"),
        (PACKAGE, "sha384-short"),
    ] {
        let e = Policy::new(&[], &[], &[(url, integrity)]).expect_err(url);
        assert_eq!(e.code, ErrorCode::InvalidOptions, "{url} {integrity}");
    }
}

/// Specifiers assembled from the pieces the tricks above use, in every order a small
/// generator reaches, and the pinned package with suffixes.
fn generated_specifiers(count: usize) -> Vec<String> {
    const SCHEMES: &[&str] = &[
        "https://", "http://", "HTTPS://", "//", "", "/", "./", "../", "data:", "https:",
    ];
    const HOSTS: &[&str] = &[
        "realm.example",
        "REALM.example",
        "realm.example:443",
        "realm.example:8443",
        "cdn.example",
        "réalm.example",
        "ｒｅａｌｍ.example",
        "xn--rlm-bma.example",
        "xn--zz.example",
        "realm.example.",
        "user@realm.example",
        "realm.example@evil.example",
        "127.0.0.1",
        "[::1]",
        "",
    ];
    const SEGMENTS: &[&str] = &[
        "realm-a",
        "shared",
        "realm-a-evil",
        "..",
        ".",
        "%2e%2e",
        "%2E",
        "..%2F",
        "%5c",
        "\\",
        "lib@1.2.3",
        "index.js",
        "x.js",
        "é",
        "%C3%A9",
        "a b",
        "?q=1",
        "#frag",
        "",
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % n as u64).unwrap()
    };
    (0..count)
        .map(|_| {
            if next(8) == 0 {
                // The pinned package, or a path built on it.
                return format!(
                    "{PACKAGE}{}",
                    ["", "/../x.js", "?v=1", "#f", "/", "%2e"][next(6)]
                );
            }
            let scheme = SCHEMES[next(SCHEMES.len())];
            let mut s = String::from(scheme);
            if scheme.ends_with("//") {
                s.push_str(HOSTS[next(HOSTS.len())]);
                s.push('/');
            }
            for _ in 0..next(5) {
                s.push_str(SEGMENTS[next(SEGMENTS.len())]);
                s.push('/');
            }
            s.push_str(SEGMENTS[next(SEGMENTS.len())]);
            s
        })
        .collect()
}

#[wasm_bindgen_test(unsupported = test)]
fn whatever_resolves_is_canonical_under_its_grant_and_resolves_to_itself() {
    let p = policy();
    let (mut allowed, mut packages) = (0, 0);
    for specifier in generated_specifiers(20_000) {
        let Ok(r) = p.resolve(&specifier, Some(REFERRER)) else {
            continue;
        };
        allowed += 1;
        packages += usize::from(matches!(r.grant, Grant::Package { .. }));
        let prefix = match &r.grant {
            Grant::Own { realm } | Grant::Readable { realm } => realm.as_str(),
            Grant::Package { .. } => PACKAGE,
            Grant::Trusted => panic!("{specifier}: no trusted modules in this policy"),
        };
        assert!(
            r.url.starts_with(prefix),
            "{specifier} -> {} ({prefix})",
            r.url
        );
        // The path only: a query may carry anything.
        let path = r.url.split('?').next().unwrap_or_default();
        let lower = path.to_ascii_lowercase();
        assert!(
            !lower.contains("%2e") && !lower.contains("%2f") && !lower.contains("%5c"),
            "{specifier} -> {}",
            r.url
        );
        let again = p
            .resolve(&r.url, None)
            .unwrap_or_else(|e| panic!("{}: {e}", r.url));
        assert_eq!(
            again, r,
            "{specifier}: the canonical URL resolves to itself"
        );
    }
    // The generator reaches allowed specifiers too, or this test would check nothing.
    assert!(allowed > 500, "only {allowed} of 20 000 were allowed");
    assert!(
        packages > 50,
        "only {packages} resolved to the pinned package"
    );
}
