//! `iolens models prices`: the prices in use, and `--update`, which reads the providers'
//! price lists over HTTPS (the `fetch` feature: ureq with rustls) into the local price file.

use anyhow::Result;
use iolens_session::Sink;

use crate::cli::PricesArgs;

/// Runs `iolens models prices`; returns the exit code (1 when a provider's list failed).
pub fn prices(a: &PricesArgs, out: &mut Sink) -> Result<i32> {
    if !a.update {
        let used = iolens_suite::prices::choose(&[], None, &[])?;
        let mut s = String::new();
        for u in used {
            s.push_str(&format!("prices used: {u}\n"));
        }
        s.push_str(&iolens_analyze::models::prices().listing());
        out.write(&s)?;
        return Ok(0);
    }
    let u = iolens_suite::prices::update(&a.provider, &a.region, &get, &now_utc())?;
    out.write(&iolens_suite::prices::update_text(&u))?;
    Ok(if u.failed.is_empty() { 0 } else { 1 })
}

/// One HTTPS GET, the body as text; the error says what failed.
#[cfg(feature = "fetch")]
fn get(url: &str) -> Result<String, String> {
    use std::io::Read;
    // The key of GCP's catalog is in the URL: never in a message.
    let shown = url.split("key=").next().unwrap_or(url);
    let resp = ureq::get(url)
        .timeout(std::time::Duration::from_secs(300))
        .call()
        .map_err(|e| format!("GET {shown}: {}", e.to_string().replace(url, shown)))?;
    let mut body = String::new();
    resp.into_reader()
        .take(2 << 30)
        .read_to_string(&mut body)
        .map_err(|e| format!("reading {shown}: {e}"))?;
    Ok(body)
}

/// Without the `fetch` feature there is no HTTP client: the update says so.
#[cfg(not(feature = "fetch"))]
fn get(_url: &str) -> Result<String, String> {
    Err("this iolens was built without the fetch feature (no HTTP client): give prices with --prices instead".into())
}

/// Now as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn now_utc() -> String {
    let s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    iolens_analyze::calibrate::utc_time(s)
}
