//! Property tests that show they tested something (#40). [`check`] runs a property over
//! generated cases as `proptest!` does (a failure is shrunk and its seed kept in
//! `proptest-regressions/`; `PROPTEST_CASES` sets the number of cases), then fails unless each
//! kind of case the property names was generated often enough: a property that holds only
//! because its inputs or results were empty (an empty list compared with an empty list) fails
//! instead of passing. Shared by the unit tests and `tests/props.rs` (which includes this file).

use proptest::prelude::{Just, any, prop, prop_oneof};
use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseResult, TestRunner};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;

/// How many cases of each kind a property met.
#[derive(Default)]
pub struct Seen(Mutex<BTreeMap<&'static str, u32>>);

impl Seen {
    /// Counts this case as one of `kind` when `yes`.
    pub fn saw(&self, kind: &'static str, yes: bool) {
        if yes {
            let mut seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
            *seen.entry(kind).or_default() += 1;
        }
    }
}

/// Runs `test` on `config.cases` values of `strategy` (or `PROPTEST_CASES` of them), panicking
/// with the smallest failing value if one fails, then checks that each `(kind, share)` of
/// `at_least` was seen (`Seen::saw`) in at least that share of the cases. `config.source_file`
/// (`file!()`) says where failing seeds are kept.
pub fn check<S: Strategy>(
    config: Config,
    strategy: S,
    at_least: &[(&'static str, f64)],
    test: impl Fn(S::Value, &Seen) -> TestCaseResult,
) {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(config.cases);
    let mut runner = TestRunner::new(Config { cases, ..config });
    let seen = Seen::default();
    if let Err(e) = runner.run(&strategy, |v| test(v, &seen)) {
        panic!("{e}");
    }
    let seen = seen.0.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut report = String::new();
    for (kind, n) in &seen {
        let _ = write!(report, " {kind} {n};");
    }
    eprintln!("{cases} cases:{report}");
    for (kind, share) in at_least {
        let n = seen.get(kind).copied().unwrap_or(0);
        assert!(
            f64::from(n) >= share * f64::from(cases),
            "only {n} of {cases} generated cases were `{kind}` (at least {:.0}% wanted): the \
             property would pass without testing what it is about",
            share * 100.0
        );
    }
}

/// Any JSON value up to four containers deep: numbers, literals, strings of any printable
/// characters, and strings dense in what a reader of JSON text can get wrong (quotes,
/// backslashes, control characters, brackets and commas, characters of two to four bytes). For
/// the unit tests of the readers that stream JSON text (`json::scan` and its callers).
#[allow(dead_code)] // `tests/props.rs` includes this file and reads no JSON text
pub fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::{Value, json};
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "\\PC{0,30}".prop_map(Value::String),
        "[\\\\\"\\n\\u{1}-\\u{1f}{}\\[\\],:é😀a]{0,30}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-z_]{1,6}", inner), 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
