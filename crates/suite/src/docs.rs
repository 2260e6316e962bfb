//! The man pages and completion scripts: the subcommands from their clap definitions, fio
//! mode from the job crate's flags and option table (fio mode is parsed by
//! `iolens_job::cmdline`, so these arguments document it and never parse it).

use std::path::Path;

use anyhow::{Context, Result};
use clap::builder::PossibleValuesParser;
use clap::{Arg, ArgAction, Command};
use iolens_job::options::{Kind, OPTIONS};

/// The command line as documented: `cli`'s subcommands (none required: without one, the
/// arguments are a fio command line), fio mode's flags and every job option, with the
/// values of those that take one of a list.
pub fn documented(cli: Command) -> Command {
    let mut c = cli
        .subcommand_required(false)
        .args_conflicts_with_subcommands(true)
        .disable_help_subcommand(true);
    let mut seen = std::collections::HashSet::from(["help", "version"]);
    for f in iolens_job::cmdline::flags() {
        if !seen.insert(f.name) {
            continue;
        }
        let a = Arg::new(f.name)
            .long(f.name)
            .help(f.help)
            .help_heading("fio mode");
        c = c.arg(match f.value {
            None => a.action(ArgAction::SetTrue),
            Some(optional) => with_choices(a.num_args(usize::from(!optional)..=1), f.choices),
        });
    }
    // Values the parsers check themselves, listed here for the man page and completions.
    let providers: Vec<&'static str> = iolens_analyze::advise::PROVIDERS
        .iter()
        .map(|(k, _)| *k)
        .collect();
    let listed =
        |names: Vec<&'static str>| move |a: Arg| a.value_parser(PossibleValuesParser::new(names));
    c = c
        .mut_subcommand("advise", |s| {
            s.mut_arg("provider", listed(providers))
                .mut_arg("types", listed(iolens_analyze::models::volume_types()))
        })
        .mut_subcommand("quick", |s| {
            s.mut_arg(
                "profile",
                listed(crate::quick::PROFILE_NAMES.split(", ").collect()),
            )
        })
        .mut_subcommand("pts", |s| {
            s.mut_arg(
                "precondition",
                listed(crate::pts::Precondition::NAMES.to_vec()),
            )
        });
    for o in OPTIONS {
        if !seen.insert(o.name) {
            continue;
        }
        let aliases: Vec<&str> = o
            .aliases
            .iter()
            .copied()
            .filter(|a| seen.insert(a))
            .collect();
        let choices = match o.kind {
            Kind::Enum(v) => v,
            _ => &[],
        };
        let a = Arg::new(o.name)
            .long(o.name)
            .aliases(aliases)
            .help(o.help)
            .value_name(o.kind.describe())
            .help_heading("fio job options (iolens --cmdhelp=NAME)")
            .num_args(usize::from(!o.kind.bare_allowed())..=1);
        c = c.arg(with_choices(a, choices));
    }
    // Built, so that clap's own --help and --version are arguments the pages list.
    c.build();
    c
}

fn with_choices(a: Arg, choices: &'static [&'static str]) -> Arg {
    if choices.is_empty() {
        a
    } else {
        a.value_parser(PossibleValuesParser::new(choices))
    }
}

/// `iolens man` of the binary's `cli`: the top page on stdout, or with `dir` that page and one per subcommand
/// (`iolens-explain.1`, ...) written there; returns what to print.
pub fn man(cli: Command, dir: Option<&Path>) -> Result<String> {
    let top = documented(cli);
    let Some(dir) = dir else {
        return top_page(top);
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create '{}'", dir.display()))?;
    let mut written = Vec::new();
    let subs: Vec<Command> = top.get_subcommands().cloned().collect();
    for (name, c) in std::iter::once(("iolens".to_string(), top)).chain(subs.into_iter().map(|s| {
        let name = format!("iolens-{}", s.get_name());
        let bin = format!("iolens {}", s.get_name());
        (name.clone(), s.name(name).bin_name(bin))
    })) {
        let path = dir.join(format!("{name}.1"));
        let text = if name == "iolens" {
            top_page(c)?
        } else {
            page(c)?
        };
        std::fs::write(&path, text)
            .with_context(|| format!("cannot write '{}'", path.display()))?;
        written.push(path.display().to_string());
    }
    Ok(format!("{}\n", written.join("\n")))
}

/// The top page, whose synopsis names the two ways in rather than every fio option.
fn top_page(c: Command) -> Result<String> {
    let m = clap_mangen::Man::new(c);
    let mut buf = Vec::new();
    m.render_title(&mut buf)?;
    m.render_name_section(&mut buf)?;
    buf.extend_from_slice(
        b".SH SYNOPSIS\n\\fBiolens\\fR [\\fIFIO OPTIONS\\fR] [\\fIJOBFILE\\fR...]\n.br\n\
          \\fBiolens\\fR \\fISUBCOMMAND\\fR [\\fIOPTIONS\\fR] (see \\fBiolens-SUBCOMMAND\\fR(1))\n",
    );
    m.render_description_section(&mut buf)?;
    m.render_options_section(&mut buf)?;
    m.render_subcommands_section(&mut buf)?;
    m.render_extra_section(&mut buf)?;
    buf.extend_from_slice(exit_status("iolens").as_bytes());
    m.render_version_section(&mut buf)?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

fn page(c: Command) -> Result<String> {
    let name = c.get_name().to_string();
    let versioned = c.get_version().or(c.get_long_version()).is_some();
    let m = clap_mangen::Man::new(c);
    let mut buf = Vec::new();
    m.render_title(&mut buf)?;
    m.render_name_section(&mut buf)?;
    m.render_synopsis_section(&mut buf)?;
    m.render_description_section(&mut buf)?;
    m.render_options_section(&mut buf)?;
    m.render_subcommands_section(&mut buf)?;
    m.render_extra_section(&mut buf)?;
    buf.extend_from_slice(exit_status(&name).as_bytes());
    if versioned {
        m.render_version_section(&mut buf)?;
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// The EXIT STATUS section of a page (`iolens` or `iolens-SUBCOMMAND`), in roff.
pub fn exit_status(page: &str) -> String {
    let special = match page {
        "iolens" => {
            "1 also when a job failed (its error is in the results), when a check refused the \
             run before any I/O (a device in use or holding data, too little free space, \
             --warnings-fatal) and for a bad option or job file (as fio).\n"
        }
        "iolens-compare" => {
            "1 also when --fail-if-slower finds a later input significantly slower in IOPS by \
             more than its percentage.\n"
        }
        "iolens-advise" => "1 also when no candidate meets the targets (the closest is named).\n",
        "iolens-quick" => {
            "1 also when a test failed, or when a check refused a test (every test is checked \
             before the first runs); the tests measured before a failure are printed.\n"
        }
        "iolens-sweep" | "iolens-curve" | "iolens-pts" => {
            "1 also when a run failed or a check refused one before its I/O.\n"
        }
        _ => "",
    };
    format!(
        ".SH \"EXIT STATUS\"\n\
         0 when the command did what it was asked; 1 when it failed (the reason is on \
         stderr, after \"iolens: error:\") or a run was interrupted (Ctrl-C, SIGTERM, \
         SIGHUP: what was measured is reported); 2 for a usage error of a subcommand (clap's \
         message and usage on stderr).\n{}",
        if special.is_empty() {
            String::new()
        } else {
            format!(".PP\n{special}")
        }
    )
}

/// `iolens completions SHELL`. zsh and fish complete `--option=value` from the values clap
/// lists; bash's script from clap completes `--option value` only, so a function in front of
/// it completes the value after `--option=` (bash splits the word at `=`) from the same lists.
pub fn completions(cli: Command, shell: clap_complete::Shell) -> String {
    let mut c = documented(cli);
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut c, "iolens", &mut buf);
    let script = String::from_utf8_lossy(&buf).into_owned();
    if shell != clap_complete::Shell::Bash {
        return script;
    }
    let script = script.replacen("_iolens() {", "_iolens_clap() {", 1);
    format!("{}\n{script}", bash_values(&c))
}

/// The listed values of every option (`SUBCOMMAND:--option`; fio mode's with no subcommand),
/// and `_iolens`, which completes `--option=value` from them and leaves the rest to clap's
/// `_iolens_clap`.
fn bash_values(c: &Command) -> String {
    let mut cases = String::new();
    let mut add = |sub: &str, a: &Arg| {
        if !a.get_action().takes_values() || a.is_hide_possible_values_set() {
            return;
        }
        let values: Vec<String> = a
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_string())
            .collect();
        let Some(long) = a.get_long() else { return };
        if values.is_empty() {
            return;
        }
        let names = std::iter::once(long).chain(a.get_all_aliases().unwrap_or_default());
        let pats: Vec<String> = names.map(|n| format!("'{sub}:--{n}'")).collect();
        cases.push_str(&format!(
            "        {}) echo '{}' ;;\n",
            pats.join("|"),
            values.join(" ")
        ));
    };
    for a in c.get_arguments() {
        add("", a);
    }
    let mut subs = Vec::new();
    for s in c.get_subcommands() {
        subs.push(s.get_name().to_string());
        for a in s.get_arguments() {
            add(s.get_name(), a);
        }
    }
    format!(
        r#"# The values of each option that takes one of a list, as "SUBCOMMAND:--option".
_iolens_values() {{
    case "$1:$2" in
{cases}        *) return 1 ;;
    esac
}}

# `--option=value`: bash splits the word at '=' (COMP_WORDBREAKS), or keeps it whole.
_iolens() {{
    local opt="" val="$2" pre="" vals sub=""
    if [[ "${{COMP_WORDS[COMP_CWORD]}}" == "=" ]]; then
        opt="${{COMP_WORDS[COMP_CWORD-1]}}"
        val=""
    elif [[ $COMP_CWORD -ge 2 && "${{COMP_WORDS[COMP_CWORD-1]}}" == "=" ]]; then
        opt="${{COMP_WORDS[COMP_CWORD-2]}}"
    elif [[ "$2" == --*=* ]]; then
        opt="${{2%%=*}}"
        val="${{2#*=}}"
        pre="$opt="
    fi
    if [[ "$opt" == --* ]]; then
        case "${{COMP_WORDS[1]}}" in
            {subs}) sub="${{COMP_WORDS[1]}}" ;;
        esac
        # sweep, curve and advise pass fio options through: fio mode's lists apply there.
        if vals="$(_iolens_values "$sub" "$opt" || _iolens_values "" "$opt")"; then
            COMPREPLY=($(compgen -P "$pre" -W "$vals" -- "$val"))
        else
            COMPREPLY=($(compgen -P "$pre" -f -- "$val"))
        fi
        return 0
    fi
    _iolens_clap "$@"
}}
"#,
        subs = subs.join("|")
    )
}
