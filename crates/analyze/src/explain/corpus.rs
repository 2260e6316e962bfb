//! The corpus test: every real result under `tests-data/` (runs of iolens and fio 3.33 on one
//! machine, see `tests-data/corpus/expected.json`) gets the bound and fix written down for it.

use serde_json::Value;

use super::*;

const EXPECTED: &str = include_str!("../../tests-data/corpus/expected.json");

/// No finding of `e` advises more depth or more in flight; the error names the finding that does.
pub(super) fn no_depth_advice(e: &Explanation) -> Result<(), String> {
    for f in &e.findings {
        let fix = f.fix.to_ascii_lowercase();
        for bad in [
            "raise iodepth",
            "iodepth >=",
            "more in flight raises",
            "numjobs >=",
        ] {
            if fix.contains(bad) {
                return Err(format!(
                    "the {} finding advises more depth ('{bad}'): {}",
                    f.kind, f.fix
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn corpus_cases_get_their_bound_and_fix() {
    let expected: Value = serde_json::from_str(EXPECTED).expect("expected.json parses");
    let cases = expected["cases"].as_array().expect("cases");
    assert!(
        cases.len() >= 25,
        "the corpus has {} cases, at least 25 expected",
        cases.len()
    );
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-data");
    let mut failures = vec![];
    for c in cases {
        let file = c["file"].as_str().unwrap();
        let want = c["bound"].as_str().unwrap();
        let mut accepted = vec![want.to_string()];
        if let Some(a) = c["also_accepted"].as_array() {
            accepted.extend(a.iter().map(|x| x.as_str().unwrap().to_string()));
        }
        let text = std::fs::read_to_string(dir.join(file))
            .unwrap_or_else(|e| panic!("cannot read corpus file {file}: {e}"));
        let view = parse_result(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        // `volume` and `instance` are what the user would pass as --volume and --instance.
        let ctx = ExplainContext {
            volume: c["volume"].as_str().map(|v| {
                crate::models::parse_volume(v).unwrap_or_else(|e| panic!("{file}: {v}: {e}"))
            }),
            instance: c["instance"]
                .as_str()
                .map(|i| crate::models::instance(i).unwrap_or_else(|e| panic!("{file}: {i}: {e}"))),
        };
        let e = explain(&view, &ctx);
        let job = e.jobs.first().unwrap_or_else(|| panic!("{file}: no job"));
        let got = job.bound.name();
        let rendered = e.to_text();
        if !accepted.iter().any(|a| a == got) {
            failures.push(format!(
                "{file}: expected bound {} ({}), got {got}:\n{rendered}",
                accepted.join(" or "),
                c["why"].as_str().unwrap_or("")
            ));
            continue;
        }
        let fix = c["fix_contains"].as_str().unwrap();
        if got == want && !job.bound_fix.contains(fix) {
            failures.push(format!(
                "{file}: the {got} fix should contain '{fix}', it is: {}",
                job.bound_fix
            ));
        }
        if let Some(bad) = c["fix_excludes"].as_str() {
            if let Some(f) = e.findings.iter().find(|f| f.fix.contains(bad)) {
                failures.push(format!(
                    "{file}: no fix should contain '{bad}', the {} finding's is: {}",
                    f.kind, f.fix
                ));
            }
        }
        if let Some(ctx) = c["context_contains"].as_str() {
            if !e.context.iter().any(|l| l.contains(ctx)) {
                failures.push(format!(
                    "{file}: context should name '{ctx}' (from --volume/--instance or the job's sim_volume), it is {:?}",
                    e.context
                ));
            }
        }
        if let Some(by) = c["limited_by_contains"].as_str() {
            let limited_by = job
                .expected
                .as_ref()
                .map(|x| x.limited_by.clone())
                .unwrap_or_default();
            if !limited_by.contains(by) {
                failures.push(format!(
                    "{file}: the expected ceiling should be limited by '{by}', it is '{limited_by}'"
                ));
            }
        }
        if got == "saturated" || got == "limit" {
            if let Err(m) = no_depth_advice(&e) {
                failures.push(format!("{file}: bound {got} but {m}"));
            }
        }
        if !rendered.contains(&format!("; bound: {got}\n")) {
            failures.push(format!(
                "{file}: the text headline does not name the bound {got}"
            ));
        }
        let json = e.to_json().to_string();
        if json.contains("shared/") || rendered.contains("shared/") {
            failures.push(format!("{file}: an internal path leaked into the output"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[test]
fn acceptance_cases_of_issue_9() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests-data/corpus");
    let load = |f: &str| {
        let t = std::fs::read_to_string(dir.join(f)).unwrap();
        explain(&parse_result(&t).unwrap(), &ExplainContext::default())
    };
    // fio's JSON of seed 003's fsync=1 job.
    let e = load("fsync-iouring-fsync1.fio.json");
    assert_eq!(e.jobs[0].bound, Bound::Fsync, "{}", e.to_text());
    let j = &e.to_json()["jobs"][0];
    assert_eq!(
        j["bound"], "fsync",
        "explain --format json names the bound: {j}"
    );
    // The throttled Q32x4 run: saturated or limit, never more depth.
    for f in [
        "throttle2000-libaio-q32t4.fio.json",
        "throttle2000-libaio-q32t4.iolens.json",
    ] {
        let e = load(f);
        assert!(
            matches!(e.jobs[0].bound, Bound::Limit | Bound::Saturated),
            "{f}: {}",
            e.to_text()
        );
        no_depth_advice(&e).unwrap_or_else(|m| panic!("{f}: {m}"));
    }
    // The seed's psync run on the simulated io1 volume: concurrency, with the volume as context
    // although no --volume was given.
    let e = load("sim-io1-psync-numjobs4.iolens.json");
    assert_eq!(e.jobs[0].bound, Bound::Concurrency, "{}", e.to_text());
    assert!(
        e.context[0].contains("io1 48,000 IOPS")
            && e.context[0].contains("sim_volume=io1:iops=48000"),
        "context from the job's sim_volume: {:?}",
        e.context
    );
    assert!(
        e.jobs[0].expected.is_some(),
        "the ceiling comes from the simulated volume"
    );
    // Glitches: configured depth printed as configured, shares of their own sum, no -0.0.
    let e = load("fsync-iouring-fsync1.fio.json");
    let text = e.to_text();
    assert!(!text.contains("200.0 %"), "{text}");
    assert!(!e.to_json().to_string().contains("-0.0"), "{}", e.to_json());
    let e = load("virtio-libaio-q32t4.fio.json");
    assert_eq!(e.jobs[0].in_flight, 128.0);
    assert!(e.to_text().contains("; 128 configured"), "{}", e.to_text());
}
