//! The crate's floor plan, checked: imports run one way, between the
//! top-level modules and inside `par/`, nothing inside the crate goes
//! through the root's re-exports, no source file grows past 500 lines but
//! the few listed with their reasons, and ARCHITECTURE.md names every
//! top-level module and lists every file (its file map is generated from
//! the tree: run `TINE_BLESS=1 cargo test --test layout` after adding,
//! moving or re-describing a file).
//!
//! The rules:
//! - Every top-level module of `src/` has a place in [`LAYERS`], top to
//!   bottom. Code in one may name (`crate::x::...`) only itself and the
//!   modules below it, so no two modules import each other.
//! - Every `crate::x` path, in code and in doc links, starts with a
//!   top-level module: none names an item through a root re-export, so
//!   `lib.rs` only re-exports and is never in the middle of an import.
//! - Inside `par/`, every folder's children (files and sub-folders) have
//!   places in [`PAR_LAYERS`], top to bottom: code in one child may name
//!   (`crate::par::...`, `super::...`, `self::...`) only the children after
//!   it in its folder, so no two siblings import each other. A child may
//!   name its parent's items, and a parent its children's: a trait and
//!   the types its methods return are parent and child.
//! - A file longer than [`MAX_LINES`] is in [`LONG_FILES`], with the
//!   reason it stays whole; every file listed there exists and is longer.
//! - Unit tests live inline, in a `#[cfg(test)] mod tests { .. }` at the
//!   foot of the file they test: no `tests.rs` files, no `mod tests;`.
//! - BENCHMARKS.md is a reference, not a notebook: at most
//!   [`BENCHMARKS_MAX_LINES`] lines, a results table in its first 40, and
//!   no date in a heading or a table's cell.
//! - No bare `true`/`false` is passed as a mode: not as a call's argument
//!   (nor inside a tuple that is one), not as a const generic. A mode is a
//!   named enum, or a marker type with a `const` (`nest/join.rs`'s
//!   `Offer`). A value is not a mode: a cell's or an atomic's
//!   ([`FLAG_VALUE_CALLS`], `new` with the flag alone), an assertion's, an
//!   `Option`'s or a `Result`'s, a builder setting's named by its method
//!   (`caller_runs`); see [`flag_arguments`].

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The top-level modules of `src/`, from the top layer to the bottom one.
/// A module may import only the modules after it in this list.
const LAYERS: &[&str] = &[
    "compat", "stream", "par", "pool", "numa", "nest", "threads", "schedule", "team", "wait",
    "arch", "sync", "error",
];

/// The longest a source file may be, in lines, but those in [`LONG_FILES`].
const MAX_LINES: usize = 500;

/// The files allowed past [`MAX_LINES`], relative to `src/`, each with the
/// reason: one concept that splitting would only scatter. The list stays
/// true: a file listed must exist and be over the limit.
const LONG_FILES: &[(&str, &str)] = &[
    (
        "par/iter.rs",
        "`ParallelIterator`: rayon's one trait, its 60-odd methods one concept, whole (as rayon's `iter/mod.rs`)",
    ),
    (
        "par/iter/indexed.rs",
        "`IndexedParallelIterator`: rayon's one trait of the indexed methods (30-odd), whole",
    ),
];

/// The folders of `par/` (relative to `src/`), each with its children (a
/// file, a sub-folder, or a file `x.rs` with its folder `x/`) from the top
/// layer to the bottom one. Code in a child may name only the children
/// after it in its folder's list (its own parent and children aside).
const PAR_LAYERS: &[(&str, &[&str])] = &[
    (
        "par",
        &[
            "source", "sort", "bridge", "targets", "iter", "drive", "cutoff", "producer",
            "settings",
        ],
    ),
    (
        "par/iter",
        &[
            "indexed", "adaptor", "collect", "extend", "consume", "convert", "par",
        ],
    ),
    (
        "par/iter/adaptor",
        &[
            "any_while",
            "chunking",
            "flatten",
            "intersperse",
            "items",
            "order",
            "reshape",
            "slicing",
            "serial",
        ],
    ),
    ("par/iter/consume", &["each", "find_last"]),
    (
        "par/source",
        &[
            "slice",
            "chunk_by",
            "slice_split",
            "slices",
            "strings",
            "drain_collections",
            "drain",
            "str_split",
            "pattern",
            "wide_range",
            "range",
            "collections",
            "owned",
            "small",
            "split",
            "tuples",
        ],
    ),
    (
        "par/drive",
        &[
            "route", "ranges", "claims", "block", "alone", "guards", "walk", "consumer",
        ],
    ),
    ("par/sort", &["cached", "merge", "quick"]),
    ("par/bridge", &["lock"]),
    ("par/cutoff", &["sites"]),
];

/// The calls whose `true`/`false` argument is a value, not a mode: an
/// atomic's or a cell's new value, an `Option`'s or a `Result`'s payload,
/// a default (`map_or`, `unwrap_or`), a builder's setting named by its
/// method (`caller_runs(false)` reads as what it sets). `new` is one too, but only with the
/// flag as its one argument (`AtomicBool::new(false)`, `Cell::new(true)`):
/// a constructor that takes a flag beside other arguments takes a mode.
/// Macros: the assertions and `matches!` compare values.
const FLAG_VALUE_CALLS: &[&str] = &[
    "store",
    "swap",
    "compare_exchange",
    "compare_exchange_weak",
    "fetch_and",
    "fetch_or",
    "fetch_xor",
    "fetch_nand",
    "set",
    "replace",
    "Some",
    "Ok",
    "Err",
    "then_some",
    "map_or",
    "unwrap_or",
    // A builder's setting, named by its method.
    "caller_runs",
];

const MAP_START: &str = "<!-- file-map:start (generated by tests/layout.rs) -->";
const MAP_END: &str = "<!-- file-map:end -->";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, as paths relative to `src/`, sorted.
fn sources(dir: &Path, base: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("src/ is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, base, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(base).expect("under src/").to_path_buf());
        }
    }
}

fn all_sources() -> Vec<PathBuf> {
    let src = root().join("src");
    let mut out = Vec::new();
    sources(&src, &src, &mut out);
    out
}

/// The top-level module a file belongs to (`None` for `lib.rs`).
fn top_module(file: &Path) -> Option<String> {
    let first = file.components().next()?.as_os_str().to_str()?.to_string();
    match first.strip_suffix(".rs") {
        Some("lib") => None,
        Some(stem) => Some(stem.to_string()),
        None => Some(first),
    }
}

/// The source with every comment removed (line comments, doc comments and
/// block comments), string and char literals left as they are.
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            i += end;
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(rest.len(), |e| e + 2);
            out.extend(rest[..end].chars().filter(|&c| c == '\n'));
            i += end;
        } else if rest.starts_with("'\"'") {
            out.push_str("'\"'"); // the char literal of a double quote
            i += 3;
        } else if rest.starts_with('"') {
            // A string literal, escapes included, kept whole.
            let mut j = 1;
            while j < rest.len() {
                match rest.as_bytes()[j] {
                    b'\\' => j += 2,
                    b'"' => break,
                    _ => j += 1,
                }
            }
            let end = (j + 1).min(rest.len());
            out.push_str(&rest[..end]);
            i += end;
        } else {
            let c = rest.chars().next().expect("not at the end");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The first segment of every path `text` names after `crate::`, with the
/// line it is on; a group (`crate::{a::b, c}`) gives each of its members.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut search = 0;
    while let Some(at) = text[search..].find("crate::") {
        let start = search + at;
        search = start + "crate::".len();
        let before = text[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `mycrate::`, not `crate::`
        }
        let line = text[..start].matches('\n').count() + 1;
        let rest = &text[search..];
        if let Some(group) = rest.strip_prefix('{') {
            // Split the group's top level on commas.
            let (mut depth, mut item) = (0usize, String::new());
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.push((line, first_segment(&item)));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            found.push((line, first_segment(&item)));
        } else {
            found.push((line, first_segment(rest)));
        }
    }
    found.retain(|(_, name)| !name.is_empty());
    found
}

fn first_segment(path: &str) -> String {
    path.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

#[test]
fn every_top_level_module_has_a_layer() {
    let mut tops: Vec<String> = all_sources().iter().filter_map(|f| top_module(f)).collect();
    tops.sort();
    tops.dedup();
    let mut layers: Vec<String> = LAYERS.iter().map(|s| s.to_string()).collect();
    layers.sort();
    assert_eq!(tops, layers, "src/'s top-level modules and LAYERS differ");
}

#[test]
fn imports_run_downward_only() {
    let rank: BTreeMap<&str, usize> = LAYERS.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let mut wrong = Vec::new();
    for file in all_sources() {
        let Some(top) = top_module(&file) else {
            continue;
        };
        let text = fs::read_to_string(root().join("src").join(&file)).expect("readable");
        for (line, name) in crate_paths(&code_only(&text)) {
            let (Some(&from), Some(&to)) = (rank.get(top.as_str()), rank.get(name.as_str())) else {
                continue; // a root path: the next test reports it
            };
            if to < from {
                wrong.push(format!(
                    "src/{}:{line}: {top} imports {name}, a layer above it",
                    file.display()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that go up a layer:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_path_goes_through_the_crate_root() {
    let mut wrong = Vec::new();
    for file in all_sources() {
        let text = fs::read_to_string(root().join("src").join(&file)).expect("readable");
        for (line, name) in crate_paths(&text) {
            if !LAYERS.contains(&name.as_str()) {
                wrong.push(format!(
                    "src/{}:{line}: crate::{name} goes through the root's re-exports; name its module",
                    file.display()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "paths through the crate root:\n{}",
        wrong.join("\n")
    );
}

/// What breaks the line limit, from each file's length (relative to
/// `src/`) and the files `allowed` past it: a long file not listed, and a
/// listed one that is gone or no longer long.
fn over_the_limit(lengths: &[(String, usize)], allowed: &[(&str, &str)]) -> Vec<String> {
    let mut wrong = Vec::new();
    for (file, lines) in lengths {
        if *lines > MAX_LINES && !allowed.iter().any(|(long, _)| long == file) {
            wrong.push(format!(
                "src/{file} has {lines} lines: split out a concept, or list it in LONG_FILES with its reason"
            ));
        }
    }
    for (long, _) in allowed {
        match lengths.iter().find(|(file, _)| file == long) {
            None => wrong.push(format!("src/{long} is in LONG_FILES but does not exist")),
            Some((_, lines)) if *lines <= MAX_LINES => wrong.push(format!(
                "src/{long} is in LONG_FILES but has {lines} lines: take it off the list"
            )),
            Some(_) => {}
        }
    }
    wrong
}

#[test]
fn no_source_file_is_over_the_limit() {
    let lengths: Vec<(String, usize)> = all_sources()
        .iter()
        .map(|file| {
            let text = fs::read_to_string(root().join("src").join(file)).expect("readable");
            (slashed(file), text.lines().count())
        })
        .collect();
    let wrong = over_the_limit(&lengths, LONG_FILES);
    assert!(
        wrong.is_empty(),
        "files over {MAX_LINES} lines:\n{}",
        wrong.join("\n")
    );
}

/// A path relative to `src/`, with `/` between its parts.
fn slashed(file: &Path) -> String {
    let parts: Vec<String> = file
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// The module a file defines, as its path's segments: `par/iter.rs` and
/// `par/iter/mod.rs` are both `par::iter`.
fn module_of(file: &str) -> Vec<String> {
    let stem = file.strip_suffix(".rs").unwrap_or(file);
    let mut segments: Vec<String> = stem.split('/').map(str::to_string).collect();
    if segments.last().is_some_and(|s| s == "mod") {
        segments.pop();
    }
    segments
}

/// Each folder under `src/` whose path starts with `top` (that folder
/// included), with its children: its files' stems (but `mod`) and its
/// sub-folders, a file `x.rs` and a folder `x/` counting once.
fn folders_under(top: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut folders: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in all_sources() {
        let file = slashed(&file);
        if !(file.starts_with(&format!("{top}/")) || file == format!("{top}.rs")) {
            continue;
        }
        let parts: Vec<&str> = file.split('/').collect();
        for depth in 1..parts.len() {
            let folder = parts[..depth].join("/");
            if !(folder == top || folder.starts_with(&format!("{top}/"))) {
                continue;
            }
            let child = parts[depth].strip_suffix(".rs").unwrap_or(parts[depth]);
            let children = folders.entry(folder).or_default();
            if child != "mod" {
                children.insert(child.to_string());
            }
        }
    }
    folders
}

/// `code` (comments already removed) with the insides of its string and
/// char literals blanked, newlines kept: a brace or a path in a literal is
/// no code. A lifetime (`'a`) is left as it is.
fn without_literals(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            // A raw string's hashes, if any, come just before its quote.
            let hashes = chars[..i].iter().rev().take_while(|&&h| h == '#').count();
            let raw = i > hashes && chars[i - hashes - 1] == 'r';
            out.push(c);
            i += 1;
            while i < chars.len() {
                if !raw && chars[i] == '\\' {
                    out.push(' ');
                    out.push(chars.get(i + 1).copied().map_or(' ', blank));
                    i += 2;
                    continue;
                }
                if chars[i] == '"'
                    && chars[i + 1..].iter().take_while(|&&h| h == '#').count() >= hashes
                {
                    break;
                }
                out.push(blank(chars[i]));
                i += 1;
            }
        } else if c == '\'' && chars.get(i + 1) == Some(&'\\') {
            // An escaped char literal: `'\n'`, `'\''`, `'\u{7f}'`.
            let end = (i + 3..chars.len())
                .find(|&j| chars[j] == '\'')
                .unwrap_or(chars.len() - 1);
            out.push_str(&" ".repeat(end - i + 1));
            i = end + 1;
            continue;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
            continue;
        } else {
            out.push(c);
        }
        i += 1;
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths of a `use` tree or an inline path starting at `at` in
/// `chars`, each as its segments (a group gives one path per member,
/// `self` in a group its prefix), and where the tree ends.
fn path_tree(chars: &[char], mut at: usize) -> (Vec<Vec<String>>, usize) {
    let skip_space = |mut i: usize| {
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        i
    };
    let mut prefix = Vec::new();
    loop {
        at = skip_space(at);
        if chars.get(at) == Some(&'{') {
            let mut paths = Vec::new();
            at += 1;
            loop {
                at = skip_space(at);
                match chars.get(at) {
                    None => return (paths, at),
                    Some('}') => return (paths, at + 1),
                    Some(',') => at += 1,
                    Some('*') => at += 1,
                    Some(_) => {
                        let (members, end) = path_tree(chars, at);
                        for member in members {
                            let mut path = prefix.clone();
                            path.extend(member.into_iter().filter(|s| s != "self"));
                            paths.push(path);
                        }
                        at = if end == at { at + 1 } else { end };
                        // ` as name` after a member.
                        let next = skip_space(at);
                        if chars[next..].starts_with(&['a', 's', ' ']) {
                            let name = skip_space(next + 2);
                            at = (name..chars.len())
                                .find(|&j| !is_ident_char(chars[j]))
                                .unwrap_or(chars.len());
                        }
                    }
                }
            }
        }
        if chars.get(at) == Some(&'*') {
            return (vec![prefix], at + 1);
        }
        let end = (at..chars.len())
            .find(|&j| !is_ident_char(chars[j]))
            .unwrap_or(chars.len());
        if end == at {
            return (vec![prefix], at);
        }
        prefix.push(chars[at..end].iter().collect());
        if chars[end..].starts_with(&[':', ':']) {
            at = end + 2;
        } else {
            return (vec![prefix], end);
        }
    }
}

/// Every path in `code` (comments removed) that starts with `crate::`,
/// `super::` or `self::`, with its line, resolved to the module path it
/// names from inside `module` (the file's module, and the inline
/// `mod x { ... }` blocks around the path), groups expanded.
fn resolved_paths(module: &[String], code: &str) -> Vec<(usize, Vec<String>)> {
    let chars: Vec<char> = without_literals(code).chars().collect();
    let mut found = Vec::new();
    let (mut depth, mut line) = (0usize, 1usize);
    // The inline modules open here, each with the depth inside its braces.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut pending_mod: Option<String> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let starts_word = i == 0 || !(is_ident_char(chars[i - 1]) || chars[i - 1] == '$');
        let rest = &chars[i..];
        let rooted = ["crate::", "super::", "self::"]
            .iter()
            .any(|root| rest.starts_with(&root.chars().collect::<Vec<_>>()));
        if starts_word && rooted && (i < 2 || chars[i - 2..i] != [':', ':']) {
            let (paths, end) = path_tree(&chars, i);
            let mut here: Vec<String> = module.to_vec();
            here.extend(inline.iter().map(|(name, _)| name.clone()));
            for path in paths {
                let resolved = if path.first().is_some_and(|s| s == "crate") {
                    path[1..].to_vec()
                } else {
                    let mut current = here.clone();
                    let mut segments = path.iter().peekable();
                    while let Some(s) = segments.next_if(|s| *s == "super" || *s == "self") {
                        if s == "super" {
                            current.pop();
                        }
                    }
                    current.extend(segments.cloned());
                    current
                };
                found.push((line, resolved));
            }
            line += chars[i..end].iter().filter(|&&c| c == '\n').count();
            i = end;
            continue;
        }
        if starts_word
            && rest.starts_with(&['m', 'o', 'd'])
            && rest.get(3).is_some_and(|c| c.is_whitespace())
        {
            let name_at = (i + 3..chars.len())
                .find(|&j| !chars[j].is_whitespace())
                .unwrap_or(chars.len());
            let name_end = (name_at..chars.len())
                .find(|&j| !is_ident_char(chars[j]))
                .unwrap_or(chars.len());
            let after = (name_end..chars.len()).find(|&j| !chars[j].is_whitespace());
            if name_end > name_at && after.is_some_and(|j| chars[j] == '{') {
                pending_mod = Some(chars[name_at..name_end].iter().collect());
            }
        }
        match c {
            '\n' => line += 1,
            '{' => {
                depth += 1;
                if let Some(name) = pending_mod.take() {
                    inline.push((name, depth));
                }
            }
            '}' => {
                depth = depth.saturating_sub(1);
                while inline.last().is_some_and(|&(_, open)| open > depth) {
                    inline.pop();
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// One import between two children of a folder.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Import {
    folder: String,
    from: String,
    to: String,
    at: String,
}

/// The imports between sibling children of the folders in `children`,
/// from `files` (each its path relative to `src/` and its text).
fn sibling_imports(
    files: &[(String, String)],
    children: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<Import> {
    let mut imports = Vec::new();
    for (file, text) in files {
        let module = module_of(file);
        for (line, target) in resolved_paths(&module, &code_only(text)) {
            let shared = module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            if shared == 0 || shared >= module.len() || shared >= target.len() {
                continue; // another top-level module, or a parent and its child
            }
            let folder = module[..shared].join("/");
            let (from, to) = (&module[shared], &target[shared]);
            let Some(kids) = children.get(&folder) else {
                continue;
            };
            if kids.contains(from) && kids.contains(to) {
                imports.push(Import {
                    folder,
                    from: from.clone(),
                    to: to.clone(),
                    at: format!("src/{file}:{line}"),
                });
            }
        }
    }
    imports.sort();
    imports.dedup();
    imports
}

/// The pairs of siblings that import each other, one line each, with the
/// first import each way.
fn mutual_pairs(imports: &[Import]) -> Vec<String> {
    let mut first: BTreeMap<(&str, &str, &str), &str> = BTreeMap::new();
    for import in imports {
        first
            .entry((&import.folder, &import.from, &import.to))
            .or_insert(&import.at);
    }
    first
        .iter()
        .filter(|((_, from, to), _)| from < to)
        .filter_map(|(&(folder, from, to), at)| {
            let back = first.get(&(folder, to, from))?;
            Some(format!(
                "{folder}/: {from} and {to} import each other ({at}, {back})"
            ))
        })
        .collect()
}

/// The imports that go up their folder's layers in `layers`.
fn upward_imports(imports: &[Import], layers: &[(&str, &[&str])]) -> Vec<String> {
    let rank = |folder: &str, child: &str| {
        let (_, order) = layers.iter().find(|(f, _)| *f == folder)?;
        order.iter().position(|c| *c == child)
    };
    imports
        .iter()
        .filter_map(|import| {
            let from = rank(&import.folder, &import.from)?;
            let to = rank(&import.folder, &import.to)?;
            (to < from).then(|| {
                format!(
                    "{}: {}/{} imports {}, a layer above it",
                    import.at, import.folder, import.from, import.to
                )
            })
        })
        .collect()
}

/// Every source file under `src/par/`, with its text.
fn par_files() -> Vec<(String, String)> {
    all_sources()
        .iter()
        .map(|file| slashed(file))
        .filter(|file| file.starts_with("par/"))
        .map(|file| {
            let text = fs::read_to_string(root().join("src").join(&file)).expect("readable");
            (file, text)
        })
        .collect()
}

#[test]
fn every_par_folder_has_its_layers() {
    let folders = folders_under("par");
    let declared: BTreeMap<String, BTreeSet<String>> = PAR_LAYERS
        .iter()
        .map(|(folder, order)| {
            (
                folder.to_string(),
                order.iter().map(|c| c.to_string()).collect(),
            )
        })
        .collect();
    for (folder, order) in PAR_LAYERS {
        let unique: BTreeSet<&str> = order.iter().copied().collect();
        assert_eq!(
            unique.len(),
            order.len(),
            "PAR_LAYERS names a child of {folder}/ twice"
        );
    }
    assert_eq!(
        folders, declared,
        "par/'s folders and their children differ from PAR_LAYERS"
    );
}

#[test]
fn no_two_par_siblings_import_each_other() {
    let imports = sibling_imports(&par_files(), &folders_under("par"));
    let mutual = mutual_pairs(&imports);
    assert!(
        mutual.is_empty(),
        "siblings in par/ that import each other:\n{}",
        mutual.join("\n")
    );
}

#[test]
fn par_imports_run_down_its_layers() {
    let imports = sibling_imports(&par_files(), &folders_under("par"));
    let wrong = upward_imports(&imports, PAR_LAYERS);
    assert!(
        wrong.is_empty(),
        "imports in par/ that go up a layer (PAR_LAYERS):\n{}",
        wrong.join("\n")
    );
}

/// The first sentence of a file's `//!` head, on one line, with rustdoc's
/// link syntax taken out (`[`X`](path)` and `[`X`]` read as `X`).
fn head_line(text: &str) -> String {
    let head: Vec<&str> = text
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .map(|l| l.trim_start_matches("//!").trim())
        .take_while(|l| !l.is_empty())
        .collect();
    let joined = head.join(" ");
    let joined = joined.trim_start_matches('#').trim();
    let sentence = match joined.find(". ") {
        Some(end) => &joined[..=end],
        None => joined,
    };
    plain_links(sentence)
}

/// `sentence` with each intra-doc link reduced to its text.
fn plain_links(sentence: &str) -> String {
    let mut out = String::new();
    let mut rest = sentence;
    while let Some(open) = rest.find("[`") {
        let Some(close) = rest[open..].find("`]") else {
            break;
        };
        let close = open + close;
        out.push_str(&rest[..open]);
        out.push_str(&rest[open + 1..=close]);
        rest = &rest[close + 2..];
        if rest.starts_with('(') {
            if let Some(end) = rest.find(')') {
                rest = &rest[end + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// ARCHITECTURE.md's file map, as the tree gives it now: each folder, then
/// its files, each with the first sentence of its head comment.
fn file_map() -> String {
    let mut map = String::new();
    let mut folders_seen: Vec<PathBuf> = Vec::new();
    for file in all_sources() {
        let text = fs::read_to_string(root().join("src").join(&file)).expect("readable");
        let parents: Vec<PathBuf> = file
            .ancestors()
            .skip(1)
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .collect();
        for (depth, folder) in parents.iter().rev().enumerate() {
            if !folders_seen.contains(folder) {
                let name = folder.file_name().expect("a folder name").to_string_lossy();
                map.push_str(&format!("{}- `{name}/`\n", "  ".repeat(depth)));
                folders_seen.push(folder.clone());
            }
        }
        let indent = "  ".repeat(parents.len());
        let name = file.file_name().expect("a file name").to_string_lossy();
        let head = head_line(&text);
        if head.is_empty() {
            map.push_str(&format!("{indent}- `{name}`\n"));
        } else {
            map.push_str(&format!("{indent}- `{name}`: {head}\n"));
        }
    }
    map
}

#[test]
fn the_architecture_file_map_matches_the_tree() {
    let path = root().join("ARCHITECTURE.md");
    let text = fs::read_to_string(&path).expect("ARCHITECTURE.md exists");
    let start = text
        .find(MAP_START)
        .expect("ARCHITECTURE.md has the file map's start marker");
    let end = text
        .find(MAP_END)
        .expect("ARCHITECTURE.md has the file map's end marker");
    let body_start = start + MAP_START.len() + 1;
    let want = file_map();
    if std::env::var_os("TINE_BLESS").is_some() {
        let new = format!("{}{}{}", &text[..body_start], want, &text[end..]);
        fs::write(&path, new).expect("ARCHITECTURE.md is writable");
        return;
    }
    assert!(
        text[body_start..end] == want,
        "ARCHITECTURE.md's file map is stale: run `TINE_BLESS=1 cargo test --test layout`"
    );
}

#[test]
fn the_architecture_names_every_module() {
    let text = fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md exists");
    let layers_at = text
        .find("## Layers")
        .expect("ARCHITECTURE.md has a Layers section");
    let layers = &text[layers_at..];
    // Listed from the bottom up.
    let mut last = 0;
    for module in LAYERS.iter().rev() {
        let named = [format!("`{module}/`"), format!("`{module}.rs`")];
        let at = named
            .iter()
            .filter_map(|n| layers.find(n.as_str()))
            .min()
            .unwrap_or_else(|| panic!("ARCHITECTURE.md's Layers section does not name `{module}`"));
        assert!(
            at >= last,
            "ARCHITECTURE.md's Layers section names `{module}` out of LAYERS' order"
        );
        last = at;
    }
}

/// The bare `true`/`false` literals that `code` (comments and the insides
/// of string literals removed: [`code_only`], [`without_literals`]) passes
/// as a mode, each with its line and what it is passed to: a call's
/// argument (`f(x, true)`, `x.f(false)`, `f(\n x,\n true,\n)`), an element
/// of a tuple that is a call's argument (`v.push((x, true))`), or a const
/// generic (`f::<true>()`, `T<N, false>`). Not a mode: a tuple or an array
/// on its own (`(None, false)`, `[true, false]`), a struct field, a
/// returned value, and the value calls of [`FLAG_VALUE_CALLS`].
fn flag_arguments(code: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = code.chars().collect();
    let before = |mut i: usize| {
        while i > 0 && chars[i - 1].is_whitespace() {
            i -= 1;
        }
        i.checked_sub(1)
    };
    let after = |mut i: usize| {
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        (i < chars.len()).then_some(i)
    };
    // The bracket that encloses `i`, by its index.
    let opener = |i: usize| {
        let mut depth = 0usize;
        let mut j = i;
        while j > 0 {
            j -= 1;
            match chars[j] {
                ')' | ']' | '}' => depth += 1,
                '(' | '[' | '{' if depth == 0 => return Some(j),
                '(' | '[' | '{' => depth -= 1,
                _ => {}
            }
        }
        None
    };
    // The name that ends just before `end` (an identifier, or `name!`,
    // or `name::<..>`), empty if none.
    let name_before = |end: usize| {
        let mut end = end;
        if end > 0 && chars[end - 1] == '>' {
            // A turbofish: skip `::<...>`.
            let mut depth = 0usize;
            while end > 0 {
                end -= 1;
                match chars[end] {
                    '>' => depth += 1,
                    '<' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            end = end.saturating_sub(2); // the `::`
        }
        let bang = end > 0 && chars[end - 1] == '!';
        let stop = if bang { end - 1 } else { end };
        let start = (0..stop)
            .rev()
            .take_while(|&j| is_ident_char(chars[j]))
            .last()
            .unwrap_or(stop);
        let name: String = chars[start..stop].iter().collect();
        if bang {
            format!("{name}!")
        } else {
            name
        }
    };
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let word = ["true", "false"].into_iter().find(|w| {
            chars[i..].starts_with(&w.chars().collect::<Vec<_>>())
                && (i == 0 || !is_ident_char(chars[i - 1]))
                && chars.get(i + w.len()).map_or(true, |&c| !is_ident_char(c))
        });
        let Some(word) = word else {
            i += 1;
            continue;
        };
        let line = chars[..i].iter().filter(|&&c| c == '\n').count() + 1;
        let (prev, next) = (before(i), after(i + word.len()));
        let prev_c = prev.map(|p| chars[p]);
        let next_c = next.map(|n| chars[n]);
        i += word.len();
        let const_generic = prev_c == Some('<')
            || (prev_c == Some(',') && next_c == Some('>'))
            || (prev_c == Some('{')
                && next_c == Some('}')
                && prev.and_then(before).map(|p| chars[p]) == Some('<'));
        if const_generic {
            found.push((line, format!("a const generic `{word}`")));
            continue;
        }
        if !(matches!(prev_c, Some('(' | ',')) && matches!(next_c, Some(')' | ','))) {
            continue;
        }
        let Some(mut open) = opener(i) else {
            continue;
        };
        // A tuple that is itself a call's argument: the call's.
        let alone = prev_c == Some('(') && next_c == Some(')');
        let mut in_tuple = false;
        if chars[open] == '(' && matches!(before(open).map(|p| chars[p]), Some('(' | ',')) {
            match opener(open) {
                Some(outer) if chars[outer] == '(' => {
                    open = outer;
                    in_tuple = true;
                }
                _ => continue,
            }
        }
        // A call: its `(` right after a name, a turbofish or a call.
        let callee = match (chars[open], open.checked_sub(1).map(|p| chars[p])) {
            ('(', Some(c)) if is_ident_char(c) || matches!(c, '>' | ')' | ']' | '!') => {
                name_before(open)
            }
            _ => continue,
        };
        let value = FLAG_VALUE_CALLS.contains(&callee.as_str())
            || (callee == "new" && alone && !in_tuple)
            || callee == "matches!"
            || callee.starts_with("assert")
            || callee.starts_with("debug_assert");
        if !value {
            found.push((line, format!("`{word}` passed to `{callee}`")));
        }
    }
    found
}

#[test]
fn no_bare_flag_is_passed_as_a_mode() {
    let mut wrong = Vec::new();
    for file in all_sources() {
        let file = slashed(&file);
        let text = fs::read_to_string(root().join("src").join(&file)).expect("readable");
        for (line, what) in flag_arguments(&without_literals(&code_only(&text))) {
            wrong.push(format!("src/{file}:{line}: {what}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "bare flags passed as modes (name each mode with an enum, or a marker type's `const`):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_checks_see_what_they_should() {
    let text = "use crate::{pool::ThreadPool, team::{Share, Team}};\n// crate::hidden\nlet x = \"crate::in_a_string\"; crate::error::Error";
    let names: Vec<String> = crate_paths(&code_only(text))
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    assert_eq!(names, ["pool", "team", "in_a_string", "error"]);
    let with_docs: Vec<String> = crate_paths(text).into_iter().map(|(_, n)| n).collect();
    assert!(with_docs.contains(&"hidden".to_string()));
    assert_eq!(top_module(Path::new("par/iter.rs")).as_deref(), Some("par"));
    assert_eq!(top_module(Path::new("error.rs")).as_deref(), Some("error"));
    assert_eq!(top_module(Path::new("lib.rs")), None);
    assert_eq!(
        plain_links("[`A`](crate::a::A) and [`B`], `c`."),
        "`A` and `B`, `c`."
    );
}

#[test]
fn the_flag_check_sees_what_it_should() {
    let text = r#"
fn f() {
    find(par, test, true);
    x.sort_into(a, b,
        false,
        c,
    );
    v.push((piece, true));
    go::<false>();
    let t: T<3, true> = T;
    AnyN::new(base, n, false);
    // comment(a, true)
    let s = "str(a, true)";
    let (a, b, c) = (None, judge(x), false);
    let array = [true, false];
    flag.store(true, Ordering::Relaxed);
    done.swap(false, Ordering::Acquire);
    let cell = Cell::new(false);
    let atomic = AtomicBool::new(true);
    let kept = core::mem::replace(&mut graced, true);
    assert_eq!(x, false);
    debug_assert!(v.last().map_or(true, |&l| l < n));
    matches!(x, Some(true));
    return Some((x, true));
    Ok(false)
}"#;
    let found = flag_arguments(&without_literals(&code_only(text)));
    let lines: Vec<usize> = found.iter().map(|(line, _)| *line).collect();
    assert_eq!(lines, [3, 5, 8, 9, 10, 11], "{found:?}");
    assert_eq!(found[0].1, "`true` passed to `find`");
    assert_eq!(found[1].1, "`false` passed to `sort_into`");
    assert_eq!(found[2].1, "`true` passed to `push`");
    assert_eq!(found[3].1, "a const generic `false`");
    assert_eq!(found[5].1, "`false` passed to `new`");
}

#[test]
fn the_par_checks_see_what_they_should() {
    let files: Vec<(String, String)> = [
        (
            "par/a.rs",
            "use super::b::B;\nuse crate::par::{c::{d::D, self}, b as _};",
        ),
        ("par/b.rs", "fn f() { crate::par::a::g(); } // super::c::X"),
        (
            "par/c/mod.rs",
            "use self::d::X;\nmod tests {\n    use super::super::a::A;\n}",
        ),
        (
            "par/c/d.rs",
            "use super::e::E;\nconst S: &str = \"crate::par::a{\";",
        ),
        (
            "par/c/e.rs",
            "fn g<'a>(x: &'a u8) -> char { '{' }\nuse super::super::c::d::D;",
        ),
    ]
    .into_iter()
    .map(|(file, text)| (file.to_string(), text.to_string()))
    .collect();
    let children: BTreeMap<String, BTreeSet<String>> =
        [("par", &["a", "b", "c"][..]), ("par/c", &["d", "e"][..])]
            .into_iter()
            .map(|(folder, kids)| {
                (
                    folder.to_string(),
                    kids.iter().map(|k| k.to_string()).collect(),
                )
            })
            .collect();
    let imports = sibling_imports(&files, &children);
    let seen: Vec<(&str, &str, &str, &str)> = imports
        .iter()
        .map(|i| {
            (
                i.folder.as_str(),
                i.from.as_str(),
                i.to.as_str(),
                i.at.as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("par", "a", "b", "src/par/a.rs:1"),
            ("par", "a", "b", "src/par/a.rs:2"),
            ("par", "a", "c", "src/par/a.rs:2"),
            ("par", "b", "a", "src/par/b.rs:1"),
            ("par", "c", "a", "src/par/c/mod.rs:3"),
            ("par/c", "d", "e", "src/par/c/d.rs:1"),
            ("par/c", "e", "d", "src/par/c/e.rs:2"),
        ]
    );
    assert_eq!(mutual_pairs(&imports).len(), 3, "a and b, a and c, d and e");
    let layers: &[(&str, &[&str])] = &[("par", &["a", "b", "c"]), ("par/c", &["d", "e"])];
    let upward = upward_imports(&imports, layers);
    assert_eq!(upward.len(), 3, "b and c import a, e imports d: {upward:?}");
    assert_eq!(module_of("par/c/mod.rs"), ["par", "c"]);
    assert_eq!(module_of("par/iter.rs"), ["par", "iter"]);

    let lengths = [
        ("par/iter.rs".to_string(), MAX_LINES + 300),
        ("long.rs".to_string(), MAX_LINES + 1),
        ("short.rs".to_string(), MAX_LINES),
    ];
    let allowed = [
        ("par/iter.rs", "why"),
        ("short.rs", "why"),
        ("gone.rs", "why"),
    ];
    let wrong = over_the_limit(&lengths, &allowed);
    assert_eq!(wrong.len(), 3, "{wrong:?}");
    assert!(wrong[0].starts_with("src/long.rs has"));
    assert!(wrong[1].starts_with("src/short.rs is in LONG_FILES but has"));
    assert!(wrong[2].starts_with("src/gone.rs is in LONG_FILES but does not exist"));
}

/// The most lines BENCHMARKS.md may have (its goal is about 600).
const BENCHMARKS_MAX_LINES: usize = 700;

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Whether `line` holds a date: `2026-11-30`, `11/30/2026`, or a month's
/// name followed by a day or a year (`November 30`, `Nov 2026`).
fn has_date(line: &str) -> bool {
    let chars: Vec<char> = line.chars().collect();
    let digits = |from: usize, n: usize| {
        from + n <= chars.len() && chars[from..from + n].iter().all(char::is_ascii_digit)
    };
    let iso = (0..chars.len()).any(|i| {
        (i == 0 || !chars[i - 1].is_ascii_digit())
            && digits(i, 4)
            && chars.get(i + 4) == Some(&'-')
            && digits(i + 5, 2)
            && chars.get(i + 7) == Some(&'-')
            && digits(i + 8, 2)
    });
    let slashed = (0..chars.len()).any(|i| {
        digits(i, 2)
            && chars.get(i + 2) == Some(&'/')
            && digits(i + 3, 2)
            && chars.get(i + 5) == Some(&'/')
            && digits(i + 6, 4)
    });
    let words: Vec<&str> = line
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let named = words.windows(2).any(|pair| {
        let month = MONTHS
            .iter()
            .any(|m| pair[0] == *m || (pair[0].len() == 3 && m.starts_with(pair[0])));
        let number = pair[1].chars().all(|c| c.is_ascii_digit())
            && matches!(pair[1].parse::<u32>(), Ok(1..=31) | Ok(1990..=2100));
        month && number
    });
    iso || slashed || named
}

#[test]
fn benchmarks_is_a_short_reference() {
    let text = fs::read_to_string(root().join("BENCHMARKS.md")).expect("BENCHMARKS.md");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.len() <= BENCHMARKS_MAX_LINES,
        "BENCHMARKS.md has {} lines, over {BENCHMARKS_MAX_LINES}: keep one table and a few lines an area; history goes to commit messages",
        lines.len()
    );
    assert!(
        lines.iter().take(40).any(|line| line.starts_with("|---")),
        "BENCHMARKS.md: the results table comes in the first 40 lines"
    );
    let dated: Vec<String> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| (line.starts_with('#') || line.starts_with('|')) && has_date(line))
        .map(|(n, line)| format!("BENCHMARKS.md:{}: {line}", n + 1))
        .collect();
    assert!(
        dated.is_empty(),
        "dated headings or cells (dates go to commit messages):\n{}",
        dated.join("\n")
    );
}

#[test]
fn the_date_check_sees_what_it_should() {
    for dated in [
        "## Results of 2026-11-30",
        "| fib | 1.2 ms (on 2026-11-30, a slow day) |",
        "| x | November 30 |",
        "## Nov 2026",
        "| 11/30/2026 |",
    ] {
        assert!(has_date(dated), "{dated}");
    }
    for plain in [
        "| sum, 1M f32 | 38.1 µs |",
        "| 10,000 steps | 0.413 s |",
        "## May the fastest win",
        "| rayon 1.12 on rayon-core 1.13 |",
        "| 8-12 ms |",
    ] {
        assert!(!has_date(plain), "{plain}");
    }
}

#[test]
fn unit_tests_are_inline() {
    let mut wrong = Vec::new();
    for file in all_sources() {
        let name = slashed(&file);
        if name == "tests.rs" || name.ends_with("/tests.rs") {
            wrong.push(format!("src/{name}: a tests file; move its tests inline"));
            continue;
        }
        let text = fs::read_to_string(root().join("src").join(&file)).expect("readable");
        for (n, line) in code_only(&text).lines().enumerate() {
            let line = line.trim();
            if line.starts_with("mod tests;") || line.starts_with("pub(crate) mod tests;") {
                wrong.push(format!(
                    "src/{name}:{}: `mod tests;`; write the module inline",
                    n + 1
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "unit tests go inline, in `#[cfg(test)] mod tests {{ .. }}`:\n{}",
        wrong.join("\n")
    );
}
