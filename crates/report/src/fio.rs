//! fio's output formats, chosen in one place: each format asked for, in the order asked, of
//! one run or of a client/server view. Every command that prints fio's formats (fio mode,
//! `quick`'s fio formats, a cluster run, `iolens merge`) goes through [`render`].

use iolens_job::OutputFormat;
use iolens_stats::RunResult;

use crate::json::Member;

/// Something fio's formats render: one run ([`Run`]) or a client/server view
/// ([`crate::clients::Clients`]).
pub trait FioFormats {
    /// The normal (human) output.
    fn normal(&self) -> String;
    /// JSON, or json+ with `plus` (the latency histogram's buckets).
    fn json(&self, plus: bool) -> String;
    /// Terse lines of `version` (2, 3 or 4).
    fn terse(&self, version: u32) -> String;
}

/// One run, with the members each JSON document gains after fio's (`iolens_explain`).
pub struct Run<'a> {
    /// The result.
    pub result: &'a RunResult,
    /// Members added at the end of a JSON document.
    pub extra: &'a [Member],
}

impl FioFormats for Run<'_> {
    fn normal(&self) -> String {
        crate::normal::render(self.result)
    }

    fn json(&self, plus: bool) -> String {
        crate::json::render_with(self.result, plus, self.extra)
    }

    fn terse(&self, version: u32) -> String {
        crate::terse::render(self.result, version)
    }
}

impl FioFormats for crate::clients::Clients<'_> {
    fn normal(&self) -> String {
        crate::clients::normal(self)
    }

    fn json(&self, plus: bool) -> String {
        crate::clients::json(self, plus)
    }

    fn terse(&self, version: u32) -> String {
        crate::clients::terse(self, version)
    }
}

/// `doc` in each of `formats`, in the order given (the caller orders them as fio does).
pub fn render(doc: &dyn FioFormats, formats: &[OutputFormat], terse_version: u32) -> String {
    let mut s = String::new();
    for f in formats {
        s.push_str(&match f {
            OutputFormat::Terse => doc.terse(terse_version),
            OutputFormat::Json => doc.json(false),
            OutputFormat::JsonPlus => doc.json(true),
            OutputFormat::Normal => doc.normal(),
        });
    }
    s
}
