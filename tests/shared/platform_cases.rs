// The guest platform: timers, microtasks, console, clocks, randomness, base64,
// structuredClone, Annex B, reports. Included by tests/core.rs and tests/core_worker.rs.

mod platform_cases {
    use isolated_realm::platform::Report;
    use isolated_realm::{ErrorCode, EvalOptions, Graph, Object, Realm, RealmOptions, Value};
    use wasm_bindgen_test::wasm_bindgen_test;

    fn realm_with(limits: impl FnOnce(&mut RealmOptions)) -> Realm {
        let mut o = RealmOptions {
            allow_code_generation: true,
            ..Default::default()
        };
        limits(&mut o);
        Realm::new(o, None).expect("realm")
    }

    fn ok(r: &mut Realm, src: &str) -> Value {
        r.eval(src, &EvalOptions::default())
            .unwrap_or_else(|e| panic!("{src}: {e}"))
            .root
    }

    fn s(x: &str) -> Value {
        Value::str(x)
    }

    /// Runs timers until none is due within `ms`.
    fn drain_timers(r: &mut Realm, ms: u64) {
        let until = web_time::Instant::now() + web_time::Duration::from_millis(ms);
        while web_time::Instant::now() < until {
            r.run_timers(100);
            match r.next_timer_delay() {
                None => break,
                Some(d) if d > web_time::Duration::from_millis(ms) => break,
                Some(_) => {}
            }
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn timers_run_in_order_and_can_be_cleared() {
        let mut r = realm_with(|_| {});
        ok(&mut r, "globalThis.log = []; setTimeout(() => log.push('b'), 300); setTimeout((x) => log.push(x), 0, 'a'); const t = setTimeout(() => log.push('never'), 5); clearTimeout(t); let n = 0; const i = setInterval(() => { log.push('i' + ++n); if (n === 3) clearInterval(i) }, 1); 0");
        assert!(r.next_timer_delay().is_some());
        drain_timers(&mut r, 2_000);
        assert_eq!(ok(&mut r, "log.join()"), s("a,i1,i2,i3,b"));
        assert!(r.next_timer_delay().is_none(), "cleared interval is gone");
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn string_handlers_are_type_errors_never_code() {
        let mut r = realm_with(|_| {});
        for src in ["setTimeout('globalThis.pwned = 1', 0)", "setInterval('1', 10)", "queueMicrotask('1')"] {
            let e = r.eval(src, &EvalOptions::default()).expect_err(src);
            assert_eq!((e.code, e.details.name.as_deref()), (ErrorCode::GuestThrew, Some("TypeError")), "{src}");
        }
        drain_timers(&mut r, 50);
        assert_eq!(ok(&mut r, "typeof pwned"), s("undefined"));
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn timer_caps_and_minimum_interval() {
        let mut r = realm_with(|o| {
            o.limits.platform.timers.max_timers = 5;
            o.limits.platform.timers.min_interval = web_time::Duration::from_millis(50);
        });
        assert_eq!(ok(&mut r, "try { for (let i = 0; i < 6; i++) setTimeout(() => {}, 1e6); 'no' } catch (e) { e.name }"), s("RangeError"));
        let mut r = realm_with(|o| o.limits.platform.timers.min_interval = web_time::Duration::from_millis(50));
        ok(&mut r, "setInterval(() => {}, 0); 0");
        let d = r.next_timer_delay().expect("interval");
        assert!(d >= web_time::Duration::from_millis(40), "interval raised to the minimum, got {d:?}");
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn timer_callbacks_are_metered_and_a_runaway_interval_is_cleared() {
        let mut r = realm_with(|o| o.limits.instructions = 1_000_000);
        ok(&mut r, "globalThis.ticks = 0; setInterval(() => { ticks++; for (;;) {} }, 1); 0");
        drain_timers(&mut r, 200);
        let reports = r.take_reports();
        assert!(matches!(&reports[..], [Report::Uncaught(e)] if e.code == ErrorCode::LimitExceeded), "{reports:?}");
        assert_eq!(ok(&mut r, "ticks"), Value::Number(1.0));
        assert!(r.next_timer_delay().is_none());
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn timers_die_with_their_realm() {
        let mut r = realm_with(|_| {});
        ok(&mut r, "setTimeout(() => {}, 1); setInterval(() => {}, 10); 0");
        r.dispose();
        assert!(r.next_timer_delay().is_none());
        assert!(r.run_timers(10).is_empty());
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn errors_outside_calls_are_reported() {
        let mut r = realm_with(|_| {});
        ok(&mut r, "queueMicrotask(() => { throw new TypeError('micro') }); Promise.reject(new RangeError('nobody')); Promise.reject(1).catch(() => {}); setTimeout(() => { throw new Error('later') }, 0); 0");
        drain_timers(&mut r, 100);
        let reports = r.take_reports();
        let names: Vec<(String, Option<String>)> = reports
            .iter()
            .map(|rep| match rep {
                Report::Uncaught(e) => ("uncaught".into(), e.details.guest_message.clone()),
                Report::UnhandledRejection(e) => ("unhandled".into(), e.details.guest_message.clone()),
                other => (format!("{other:?}"), None),
            })
            .collect();
        assert_eq!(
            names,
            vec![
                ("uncaught".into(), Some("micro".into())),
                ("unhandled".into(), Some("nobody".into())),
                ("uncaught".into(), Some("later".into())),
            ]
        );
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn console_reports_cloned_args_and_is_rate_limited() {
        let mut r = realm_with(|o| o.limits.platform.console_per_second = 3);
        ok(&mut r, "console.log('hi', { n: 1 }); console.warn(() => 1); for (let i = 0; i < 10; i++) console.error(i); 0");
        let reports = r.take_reports();
        assert_eq!(reports.len(), 4, "{reports:?}");
        match &reports[0] {
            Report::Console { level: "log", args } => {
                let Value::Object(id) = args.root else { panic!() };
                assert!(matches!(args.get(id), Some(Object::Array { length: 2, .. })));
            }
            other => panic!("{other:?}"),
        }
        match &reports[1] {
            Report::Console { level: "warn", args } => {
                let Value::Object(id) = args.root else { panic!() };
                let Some(Object::Array { elements, .. }) = args.get(id) else { panic!() };
                assert!(matches!(&elements[0].1, Value::String(t) if t.to_lossy().contains("=>")), "functions are logged as text");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(reports[3], Report::ConsoleDropped(9));
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn clocks_work_and_are_coarsened() {
        let mut r = realm_with(|o| o.limits.platform.clock_resolution = web_time::Duration::from_millis(100));
        assert_eq!(ok(&mut r, "const a = performance.now(), b = performance.now(); b >= a && a % 100 === 0 && Date.now() % 100 === 0 && new Date().getTime() % 100 === 0 && Date.now() > 1.7e12"), Value::Bool(true));
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn randomness_is_available_and_well_formed() {
        let mut r = realm_with(|_| {});
        let checks = [
            "const a = crypto.getRandomValues(new Uint8Array(32)); a.some((x) => x !== 0)",
            "crypto.getRandomValues(new Uint32Array(4)).length === 4",
            "/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID())",
            "crypto.randomUUID() !== crypto.randomUUID()",
            "try { crypto.getRandomValues(new Float64Array(1)); false } catch (e) { e instanceof TypeError }",
            "try { crypto.getRandomValues(new Uint8Array(65537)); false } catch (e) { true }",
            "new Set(Array.from({ length: 100 }, Math.random)).size === 100",
        ];
        for src in checks {
            assert_eq!(ok(&mut r, src), Value::Bool(true), "{src}");
        }
    }

    const PURE: &[(&str, &str)] = &[
        ("btoa('hello')", "aGVsbG8="),
        ("atob(' aGVs bG8=\\n')", "hello"),
        ("atob(btoa('\\u00ff\\u0000x'))", "\u{ff}\u{0}x"),
        ("(() => { try { btoa('☃') } catch (e) { return e.name } })()", "InvalidCharacterError"),
        ("(() => { try { atob('a') } catch (e) { return e.name } })()", "InvalidCharacterError"),
        ("'abcdef'.substr(2, 3)", "cde"),
        ("escape('a b+é')", "a%20b+%E9"),
        ("unescape('%u263A%41')", "☺A"),
        ("'x'.bold() + 'y'.anchor('\"q')", "<b>x</b><a name=\"&quot;q\">y</a>"),
        ("(() => { const o = { m: new Map([[1, { d: new Date(0) }]]) }; o.self = o; const c = structuredClone(o); return [c !== o, c.self === c, c.m.get(1).d instanceof Date, c.m.get(1) !== o.m.get(1)].join() })()", "true,true,true,true"),
        ("(() => { try { structuredClone({ f() {} }) } catch (e) { return e.name } })()", "DataCloneError"),
        ("new TextDecoder().decode(new TextEncoder().encode('héllo 👋'))", "héllo 👋"),
        ("[...new TextEncoder().encode('é')].join()", "195,169"),
        ("new TextEncoder().encode('\\uD800').join()", "239,191,189"),
        ("new TextDecoder().decode(new Uint8Array([0xEF, 0xBB, 0xBF, 0x61]))", "a"),
        ("new TextDecoder('utf-8', { ignoreBOM: true }).decode(new Uint8Array([0xEF, 0xBB, 0xBF, 0x61])).length + ''", "2"),
        ("new TextDecoder().decode(new Uint8Array([0x61, 0xff]))", "a\u{fffd}"),
        ("(() => { try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])) } catch (e) { return e.name } })()", "TypeError"),
        ("JSON.stringify(new TextEncoder().encodeInto('aé', new Uint8Array(2)))", "{\"read\":1,\"written\":1}"),
        ("new TextDecoder().decode(new DataView(new Uint8Array([0x68, 0x69, 0x21]).buffer, 1))", "i!"),
        ("(() => { try { new TextDecoder('klingon') } catch (e) { return e.name } })()", "RangeError"),
        ("Object.prototype.toString.call(new TextEncoder())", "[object TextEncoder]"),
    ];

    #[wasm_bindgen_test(unsupported = test)]
    fn pure_helpers_and_annex_b_match_browsers() {
        let mut r = realm_with(|_| {});
        for (src, want) in PURE {
            assert_eq!(ok(&mut r, src), s(want), "{src}");
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn lazy_globals_work_on_every_call() {
        // The first function to touch a lazy global must keep working on later calls.
        let mut r = realm_with(|_| {});
        ok(&mut r, "function enc(s) { return new TextEncoder().encode(s).length } 0");
        for _ in 0..3 {
            assert_eq!(ok(&mut r, "enc('héllo')"), Value::Number(6.0));
        }
        assert_eq!(ok(&mut r, "TextDecoder === TextDecoder && typeof TextEncoder"), s("function"));
        ok(&mut r, "TextEncoder = 5; 0");
        assert_eq!(ok(&mut r, "TextEncoder"), Value::Number(5.0));
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn async_results_can_wait_for_timers() {
        use isolated_realm::Outcome;
        let mut r = realm_with(|_| {});
        let out = r
            .eval_outcome("new Promise((resolve) => setTimeout(() => resolve('late'), 5))", &EvalOptions::default())
            .expect("eval");
        let Outcome::Pending(token) = out else { panic!("{out:?}") };
        let mut done = Vec::new();
        let until = web_time::Instant::now() + web_time::Duration::from_millis(2_000);
        while done.is_empty() && web_time::Instant::now() < until {
            done = r.run_timers(10);
        }
        assert_eq!(done, vec![(token, Ok(Graph::primitive(s("late"))))]);
    }
}
