//! Latency models calibrated from the user's runs, kept in `latency-models.json` in the data
//! directory beside the local price file: `iolens models calibrate` adds one (one per type, a
//! new one replaces the type's), exports them to a file a team shares and imports such a
//! file; `advise` and `explain` use them ([`choose`]) before the shipped models.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use iolens_analyze::calibrate::{calibrate as from_result, Request};
use iolens_analyze::models::{use_calibrated, ModelFile};

use crate::prices::data_dir;

/// The local latency model file: `latency-models.json` in [`data_dir`].
pub fn local_model_file() -> Option<PathBuf> {
    data_dir().map(|d| d.join("latency-models.json"))
}

/// This machine's host name (`unknown` where it cannot be read).
pub fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

/// The local model file's models (none when it does not exist).
pub fn load_local() -> Result<(Option<PathBuf>, ModelFile)> {
    let Some(p) = local_model_file() else {
        return Ok((None, ModelFile::default()));
    };
    if !p.is_file() {
        return Ok((Some(p), ModelFile::default()));
    }
    let f = read(&p)?;
    Ok((Some(p), f))
}

fn read(p: &Path) -> Result<ModelFile> {
    let text = std::fs::read_to_string(p)
        .with_context(|| format!("cannot read latency model file {}", p.display()))?;
    Ok(ModelFile::parse(&text, p)?)
}

/// Writes `f` to `p` whole or not at all (a file beside it, renamed over it).
fn write(p: &Path, f: &ModelFile) -> Result<()> {
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    let tmp = p.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, f.to_text()).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, p).with_context(|| format!("cannot write {}", p.display()))?;
    Ok(())
}

fn local_path() -> Result<PathBuf> {
    local_model_file().ok_or_else(|| {
        anyhow::anyhow!("no data directory: set IOLENS_DATA_DIR (or XDG_DATA_HOME, or HOME)")
    })
}

/// Loads the local models and makes them the latency models of their types for this command;
/// returns the lines that say which are used (none without a local model file).
pub fn choose() -> Result<Vec<String>> {
    let (p, f) = load_local()?;
    if f.models.is_empty() {
        return Ok(vec![]);
    }
    // Chosen once per command; a second choice in one process keeps the first.
    let _ = use_calibrated(&f);
    let p = p.map(|p| p.display().to_string()).unwrap_or_default();
    Ok(f.models
        .iter()
        .map(|m| {
            format!(
                "latency model of {} measured on your volume: {} (from {p}, measured {})",
                m.ty, m.name, m.measured
            )
        })
        .collect())
}

/// `iolens models calibrate RESULT.json --type TYPE`: the model made from the result, stored
/// in the local model file; the text says what it is, at which load, and what it replaced.
pub fn calibrate(result: &Path, mut req: Request) -> Result<String> {
    let text = std::fs::read_to_string(result)
        .with_context(|| format!("cannot read '{}'", result.display()))?;
    req.result_name = result.file_name().map_or_else(
        || result.display().to_string(),
        |n| n.to_string_lossy().into(),
    );
    let m = from_result(&text, &req)?;
    let path = local_path()?;
    let (_, mut f) = load_local()?;
    let l = m
        .model()
        .map_err(|e| anyhow::anyhow!("the model made does not parse: {e}"))?;
    let mut out = format!(
        "latency model {} for {} (measured on your volume): {}\n  quantiles: {}\n  measured {} on host {}{} at {}\n  bound: {}\n",
        m.name,
        m.ty,
        l.summary(),
        m.quantiles,
        m.measured,
        m.host,
        m.instance
            .as_ref()
            .map(|i| format!(", instance {i}"))
            .unwrap_or_default(),
        m.conditions(),
        m.load.bound
    );
    if let Some(old) = f.put(m) {
        out.push_str(&format!(
            "  replaces {} (measured {}): one model per type\n",
            old.name, old.measured
        ));
    }
    write(&path, &f)?;
    out.push_str(&format!(
        "stored in {}; advise and explain use it for this type (advise's --latency still wins)\n",
        path.display()
    ));
    Ok(out)
}

/// `--export FILE`: the local models (or those named) written to `file` to share.
pub fn export(file: &Path, names: &[String]) -> Result<String> {
    let (_, f) = load_local()?;
    let mut out = ModelFile::default();
    for m in &f.models {
        if names.is_empty() || names.contains(&m.name) || names.contains(&m.ty) {
            out.models.push(m.clone());
        }
    }
    if let Some(n) = names
        .iter()
        .find(|n| !f.models.iter().any(|m| &m.name == *n || &m.ty == *n))
    {
        anyhow::bail!(
            "no calibrated model named '{n}'; there are: {}",
            list_names(&f)
        );
    }
    if out.models.is_empty() {
        anyhow::bail!("no calibrated models to export: calibrate one first (iolens models calibrate RESULT.json --type TYPE)");
    }
    write(file, &out)?;
    Ok(format!(
        "exported {} to {}\n",
        list_names(&out),
        file.display()
    ))
}

/// `--import FILE`: a shared model file's models added to the local ones (each replacing its
/// type's).
pub fn import(file: &Path) -> Result<String> {
    let given = read(file)?;
    let path = local_path()?;
    let (_, mut f) = load_local()?;
    let mut out = String::new();
    for m in given.models {
        let (name, ty) = (m.name.clone(), m.ty.clone());
        match f.put(m) {
            Some(old) => out.push_str(&format!(
                "imported {name} for {ty}, replacing {} (measured {})\n",
                old.name, old.measured
            )),
            None => out.push_str(&format!("imported {name} for {ty}\n")),
        }
    }
    write(&path, &f)?;
    out.push_str(&format!("stored in {}\n", path.display()));
    Ok(out)
}

/// `--remove NAME`: a model (by name or type) taken out of the local file.
pub fn remove(name: &str) -> Result<String> {
    let path = local_path()?;
    let (_, mut f) = load_local()?;
    let before = f.models.len();
    f.models.retain(|m| m.name != name && m.ty != name);
    if f.models.len() == before {
        anyhow::bail!(
            "no calibrated model named '{name}'; there are: {}",
            list_names(&f)
        );
    }
    write(&path, &f)?;
    Ok(format!("removed {name} from {}\n", path.display()))
}

/// The local models, one line each, for `iolens models`.
pub fn listing() -> Result<String> {
    let (p, f) = load_local()?;
    let mut out = String::from("\nLatency models measured on your volume (iolens models calibrate; advise and explain use them before the shipped ones)\n");
    if f.models.is_empty() {
        out.push_str("  none\n");
        return Ok(out);
    }
    if let Some(p) = p {
        out.push_str(&format!("  file: {}\n", p.display()));
    }
    for l in f.listing() {
        out.push_str(&format!("  {l}\n"));
    }
    Ok(out)
}

fn list_names(f: &ModelFile) -> String {
    if f.models.is_empty() {
        return "none".into();
    }
    f.models
        .iter()
        .map(|m| format!("{} ({})", m.name, m.ty))
        .collect::<Vec<_>>()
        .join(", ")
}
