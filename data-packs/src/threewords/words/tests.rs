#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use super::*;

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|w| w.to_string()).collect()
}

fn levels(files: &[(u32, &[&str])]) -> BTreeMap<u32, Vec<String>> {
    files.iter().map(|(l, w)| (*l, words(w))).collect()
}

fn run(
    files: &[(u32, &[&str])],
    block: &[&str],
    dict: &str,
    count: usize,
) -> Result<WordList, BuildError> {
    select(
        "en",
        &levels(files),
        &BlockList::new(&words(block), "").unwrap(),
        &parse_cmudict(dict.as_bytes()),
        count,
    )
}

fn all(files: &[(u32, &[&str])], block: &[&str], dict: &str) -> WordList {
    let n = files.iter().map(|(_, w)| w.len()).sum();
    // Ask for as many words as remain.
    match run(files, block, dict, n) {
        Err(BuildError::TooFewWords { found, .. }) => run(files, block, dict, found).unwrap(),
        other => other.unwrap(),
    }
}

#[test]
fn candidates_are_three_to_ten_lowercase_letters_up_to_level_70() {
    let list = all(
        &[
            (
                10,
                &[
                    "ok",
                    "cat",
                    "Dog",
                    "don't",
                    "café",
                    "abcdefghij",
                    "abcdefghijk",
                ],
            ),
            (60, &["owl"]),
            (70, &["emu"]),
            (80, &["yak"]),
        ],
        &[],
        "",
    );
    assert_eq!(list.words, ["cat", "abcdefghij", "owl", "emu"]);
    assert_eq!(list.stats.candidates, 4);
}

#[test]
fn a_word_has_the_smallest_level_holding_it() {
    let list = all(&[(10, &["zebra"]), (35, &["apple", "zebra"])], &[], "");
    assert_eq!(list.words, ["zebra", "apple"]);
    assert_eq!(list.stats.per_level, BTreeMap::from([(10, 1), (35, 1)]));
}

#[test]
fn other_forms_are_dropped_only_when_their_base_is_a_candidate() {
    let list = all(
        &[
            (
                10,
                &[
                    "cat", "cats", "fly", "flies", "box", "boxes", "glass", "walk", "hope",
                ],
            ),
            (
                20,
                &[
                    "dogs", "cries", "oxes", "glasses", "classs", "clas", "class", "walked",
                    "walking", "walker", "hoped", "hoping", "hoper", "shop", "shopping", "shopped",
                    "happy", "happily", "happier", "gentle", "gently", "quick", "quickly",
                    "string", "bed", "family",
                ],
            ),
            // A base above level 70 is no candidate.
            (80, &["dog"]),
        ],
        &[],
        "",
    );
    for gone in [
        "cats", "flies", "boxes", "glasses", "walked", "walking", "walker", "hoped", "hoping",
        "hoper", "shopping", "shopped", "happily", "happier", "gently", "quickly",
    ] {
        assert!(!list.words.contains(&gone.to_string()), "{gone} kept");
    }
    // No base (dog is level 80, cry and ox are absent, `str`, `b` and `fami` are no
    // candidates), or `Xss` (no plural of `Xs`).
    for kept in [
        "dogs", "cries", "oxes", "class", "classs", "clas", "string", "bed", "family", "walk",
        "hope", "happy", "gentle", "quick", "shop",
    ] {
        assert!(list.words.contains(&kept.to_string()), "{kept} dropped");
    }
    assert_eq!(list.stats.forms_dropped, 16);
    assert!(has_base_form("does", |w| w == "doe"));
    assert!(!has_base_form("boss", |w| w == "bos"));
    assert!(has_base_form("stopped", |w| w == "stop"));
    assert!(has_base_form("ruled", |w| w == "rule"));
    assert!(!has_base_form("seeing", |w| w == "se"));
}

#[test]
fn spellings_keep_the_earlier_ranked_one() {
    let list = all(
        &[
            (10, &["colour", "judgement", "centre"]),
            (
                20,
                &[
                    "color", "judgment", "center", "woolly", "wooly", "aeon", "eon",
                ],
            ),
        ],
        &[],
        "",
    );
    // Shorter first within a level: `eon` and `wooly` are ranked before `aeon` and `woolly`.
    assert_eq!(
        list.words,
        ["centre", "colour", "judgement", "eon", "wooly"]
    );
    assert_eq!(list.stats.spellings_dropped, 5);
    assert!(spelling_variants("realise").contains(&"realize".to_string()));
    assert!(spelling_variants("catalogue").contains(&"catalog".to_string()));
    assert!(spelling_variants("defence").contains(&"defense".to_string()));
    // `our` only at the end: `hour` → `hor`, but `journey` has no `jorney`.
    assert!(spelling_variants("hour").contains(&"hor".to_string()));
    assert!(!spelling_variants("journey").contains(&"jorney".to_string()));
}

#[test]
fn short_words_one_edit_from_another_word_are_dropped() {
    let list = all(
        &[(
            10,
            &[
                "cat", "bat", "cart", "owl", "yak", "yaks", "ant", "tan", "nat",
            ],
        )],
        &[],
        "",
    );
    // cat/bat (a letter), cat/cart (one added), ant/nat (a swap); owl and tan (two edits
    // from nat and ant) have no neighbour; `yaks` is a form of `yak`.
    assert_eq!(list.words, ["owl", "tan", "yak", "cart"]);
    assert_eq!(list.stats.short_dropped, 4);
    let edits = one_edit("ab");
    for e in ["b", "a", "ba", "abc", "xab", "ac", "zb"] {
        assert!(edits.contains(&e.to_string()), "{e}");
    }
    assert!(!edits.contains(&"ab".to_string()));
}

#[test]
fn block_list_drops_equal_words_and_words_containing_an_entry() {
    let list = all(
        &[(
            10,
            &[
                "ass", "class", "grass", "cat", "xxx", "twowords", "words", "sos",
            ],
        )],
        &["Ass", "xx", "two words", "SOS"],
        "",
    );
    // `ass` equal, `class`/`grass` contain it; `xx` is too short to block `xxx`; phrases
    // block nothing; `sos` is equal to an entry.
    assert_eq!(list.words, ["cat", "xxx", "words", "twowords"]);
    assert_eq!(list.stats.blocked, 4);
    let short = BlockList::new(&words(&["ab"]), "").unwrap();
    assert!(short.blocks("ab") && !short.blocks("abc"));
}

#[test]
fn block_rules_match_whole_words_prefixes_and_substrings() {
    let block = BlockList::new(&[], "# a comment\n\ngun\ntortur*\n*piss*\n").unwrap();
    for blocked in [
        "gun", "torture", "torturer", "tortured", "piss", "pissed", "xpissx",
    ] {
        assert!(block.blocks(blocked), "{blocked}");
    }
    for free in ["gunwale", "begun", "retorture", "pis"] {
        assert!(!block.blocks(free), "{free}");
    }
    for bad in ["Gun", "g*n", "*gun", "gun!", "*"] {
        let err = BlockList::new(&[], bad).unwrap_err();
        assert!(err.contains(bad) && err.contains("word*"), "{err}");
    }
    // The repository's own rules parse and hold the words that must never be in a list.
    let own = BlockList::new(&[], ENGLISH_BLOCK_RULES).unwrap();
    for w in [
        "pederasty",
        "lyncher",
        "gypsy",
        "suicidal",
        "torturer",
        "murder",
        "nazi",
        "piss",
    ] {
        assert!(own.blocks(w), "{w}");
    }
}

#[test]
fn words_are_ranked_by_level_then_length_then_alphabet() {
    let list = all(
        &[
            (20, &["bee", "ant", "zebra"]),
            (10, &["house", "cow", "ape", "horse"]),
        ],
        &[],
        "",
    );
    assert_eq!(
        list.words,
        ["ape", "cow", "horse", "house", "ant", "bee", "zebra"]
    );
}

#[test]
fn homophones_keep_the_earlier_ranked_word() {
    let dict = "\
;;; an old-style comment line
their DH EH1 R
there DH EH1 R
there(2) DH ER0
write R AY1 T
right R AY1 T # the one ranked first stays
rite R AY1 T
sun S AH1 N
son S AH1 N
tear T EH1 R
tear(2) T IH1 R
tier T IH1 R
";
    let list = all(
        &[
            (10, &["there", "right", "sun", "tear", "zzz"]),
            (20, &["their", "write", "rite", "son", "tier"]),
        ],
        &[],
        dict,
    );
    // `there` (level 10) beats `their` (level 20); `tier` shares tear's second
    // pronunciation; `zzz` has no CMU entry and is kept.
    assert_eq!(list.words, ["sun", "zzz", "tear", "right", "there"]);
    assert_eq!(list.stats.homophones_dropped, 5);
    // Within a level and length, the alphabet decides: `son` stays, `sun` goes.
    let list = all(&[(10, &["sun", "son"])], &[], dict);
    assert_eq!(list.words, ["son"]);
}

#[test]
fn dropped_homophones_become_aliases_of_the_listed_word() {
    let dict = "their DH EH1 R\nthere DH EH1 R\nright R AY1 T\nwrite R AY1 T\nrite R AY1 T\nbadword B AE1 D\n";
    let list = all(
        &[
            (10, &["there", "right"]),
            (20, &["their", "write", "rite", "badword"]),
        ],
        &["bad"],
        dict,
    );
    assert_eq!(list.words, ["right", "there"]);
    let candidates = ["there", "right", "their", "write", "rite", "badword", "x"];
    let aliases = aliases(
        &list,
        candidates.into_iter(),
        &BlockList::new(&["bad".to_string()], "").unwrap(),
        &parse_cmudict(dict.as_bytes()),
    );
    // Sorted by alias; listed words, blocked words and words of no sound are none.
    assert_eq!(
        aliases,
        [
            ("rite".to_string(), 0),
            ("their".to_string(), 1),
            ("write".to_string(), 0)
        ]
    );
}

#[test]
fn too_few_words_is_an_error_and_the_cut_keeps_the_best_ranked() {
    let files: &[(u32, &[&str])] = &[(10, &["cat", "cats", "dog"]), (20, &["owl"])];
    let err = run(files, &[], "", 4).unwrap_err();
    assert!(
        matches!(
            err,
            BuildError::TooFewWords {
                found: 3,
                needed: 4,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("3 words"), "{err}");
    let list = run(files, &[], "", 2).unwrap();
    assert_eq!(list.words, ["cat", "dog"]);
    assert_eq!(
        list.stats,
        WordListStats {
            candidates: 4,
            forms_dropped: 1,
            blocked: 0,
            homophones_dropped: 0,
            spellings_dropped: 0,
            short_dropped: 0,
            eligible: 3,
            kept: 2,
            per_level: BTreeMap::from([(10, 2)]),
        }
    );
    assert_eq!(list.joined(), "cat\ndog");
    assert_eq!(
        list.sha256(),
        waymark_core::packs::install::sha256_hex(b"cat\ndog")
    );
}

#[test]
fn cmudict_lines_are_parsed_bytes_safe_without_stress() {
    let mut bytes = b"read R EH1 D\nread(2) R IY1 D\nread(3) R EH2 D\n".to_vec();
    bytes.extend_from_slice(b"caf\xe9 K AE0 F EY1 # foreign\r\n");
    bytes.extend_from_slice(b"(paren) P ER0 EH1 N\n\n# only a comment\nlonely\n");
    let dict = parse_cmudict(&bytes);
    assert_eq!(dict["read"], ["R EH D", "R IY D"]);
    assert_eq!(dict["caf\u{e9}"], ["K AE F EY"]);
    assert_eq!(dict["(paren)"], ["P ER EH N"]);
    assert!(!dict.contains_key("lonely"));
    assert_eq!(dict.len(), 3);
}

#[test]
fn other_languages_are_refused_with_a_pointer_to_the_docs() {
    let sources = Sources::load(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sources.toml"
    )))
    .unwrap();
    let err = for_language(&sources, "fr").unwrap_err().to_string();
    assert!(
        err.contains("English") && err.contains("docs/data-sources.md"),
        "{err}"
    );
}

/// The shipped list: built from the real pinned sources and pinned by its SHA-256. If this
/// fails, the list changed, and every three-word address handed out would move: do not
/// update the pin, find what changed.
#[test]
fn the_english_list_is_built_from_the_pinned_sources_and_never_changes() {
    let sources = Sources::load(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sources.toml"
    )))
    .unwrap();
    for id in [RANKED_SOURCE, BLOCKLIST_SOURCE, CMUDICT_SOURCE] {
        let source = sources.get(id).unwrap();
        let client_ok = std::process::Command::new(&source.client)
            .arg("--version")
            .output()
            .is_ok();
        if !sources.is_available(source) && !client_ok {
            eprintln!(
                "skipped: {id} is not cached and {} is absent",
                source.client
            );
            return;
        }
    }
    let list = english(&sources).unwrap();
    eprintln!("{:?}", list.stats);
    assert_eq!(list.language, "en");
    assert_eq!(list.words.len(), WORDS_PER_LANGUAGE);
    assert_eq!(list.stats.kept, WORDS_PER_LANGUAGE);

    let set: HashSet<&str> = list.words.iter().map(String::as_str).collect();
    assert_eq!(set.len(), WORDS_PER_LANGUAGE, "duplicates");
    let ranked: HashSet<String> = english_inputs(&sources)
        .unwrap()
        .levels
        .into_values()
        .flatten()
        .collect();
    let mut short = 0;
    for w in &list.words {
        assert!(is_candidate_shape(w), "{w}");
        // Only dialect-neutral words (no `colour` or `color`).
        assert!(ranked.contains(w), "{w} is in no english-words file");
        // One form per stem.
        for base in base_forms(w) {
            assert!(!set.contains(base.as_str()), "{w} is a form of {base}");
        }
        // One spelling per word.
        for v in spelling_variants(w) {
            assert!(
                !set.contains(v.as_str()),
                "{w} and {v} are spellings of one word"
            );
        }
        // Short words have no neighbour one edit away.
        if w.len() < MIN_UNAMBIGUOUS_LEN {
            short += 1;
            for v in one_edit(w) {
                assert!(!set.contains(v.as_str()), "{w} is one edit from {v}");
            }
        }
    }
    eprintln!("{short} words shorter than {MIN_UNAMBIGUOUS_LEN} letters");

    // Neither the pinned block list nor the repository's own rules block a word.
    let block: Vec<String> =
        read_json_words(&sources.member(BLOCKLIST_SOURCE, BLOCKLIST_MEMBER).unwrap()).unwrap();
    for entry in block.iter().map(|e| e.to_lowercase()) {
        if entry.contains(' ') {
            continue;
        }
        for w in &list.words {
            assert!(
                *w != entry && (entry.chars().count() < 3 || !w.contains(&entry)),
                "{w} is blocked by {entry}"
            );
        }
    }
    for rule in ENGLISH_BLOCK_RULES
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        for w in &list.words {
            let hit = match (rule.strip_prefix('*'), rule.strip_suffix('*')) {
                (Some(inner), Some(_)) => w.contains(inner.trim_end_matches('*')),
                (None, Some(prefix)) => w.starts_with(prefix),
                _ => w == rule,
            };
            assert!(!hit, "{w} is blocked by the rule `{rule}`");
        }
    }
    // Words that must never be on a door, whatever the rules say.
    for w in [
        "pederasty",
        "lyncher",
        "gypsy",
        "piss",
        "suicidal",
        "torturer",
        "niggle",
        "niggled",
    ] {
        assert!(!set.contains(w), "{w} is in the list");
    }

    // One word per pronunciation.
    let dict = sources.member(CMUDICT_SOURCE, CMUDICT_MEMBER).unwrap();
    let dict = parse_cmudict(&std::fs::read(dict).unwrap());
    let mut sound_of: HashMap<&str, &str> = HashMap::new();
    for w in &list.words {
        for p in dict.get(w.as_str()).into_iter().flatten() {
            if let Some(other) = sound_of.insert(p.as_str(), w.as_str()) {
                panic!("{other} and {w} both sound {p}");
            }
        }
    }

    // Few words end in -ed or -ing (they did in a quarter of a list without the stem rule).
    let inflected = list
        .words
        .iter()
        .filter(|w| w.ends_with("ed") || w.ends_with("ing"))
        .count();
    eprintln!("{inflected} words end in -ed or -ing");
    assert!(
        inflected * 33 < list.words.len(),
        "{inflected} -ed/-ing words"
    );

    assert_eq!(
        list.words[..20],
        [
            "able", "also", "area", "army", "away", "back", "ball", "bank", "base", "bear", "been",
            "best", "bill", "bite", "blow", "blue", "boat", "body", "book", "boot",
        ]
    );
    assert_eq!(
        list.sha256(),
        "230d4c826b7cfc5d10f6dc35f6d50e244e4b5817fddea3ba89ee6775422cc80b",
        "the English three-word list changed: it must never change once shipped"
    );
}
