//! Words as the corrections compare them: lowercased runs of letters and digits, character pairs
//! in scripts written without spaces (Chinese, Japanese), stems of common English endings, and
//! the script a text is written in.

use std::collections::HashSet;

/// Whether `c` belongs to a script written without spaces between words (Han, kana, Hangul
/// syllables are spaced, but their words do not stem: they are compared by pairs too).
pub(crate) fn unspaced(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}' // kana
        | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' // Han
        | '\u{AC00}'..='\u{D7AF}' // Hangul syllables
    )
}

/// Lowercased runs of letters and digits; a run in an unspaced script becomes its character
/// pairs ("测试通过" -> "测试", "试通", "通过"), so that a paraphrase shares some of them.
pub(crate) fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut run = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let flush_cjk = |cjk: &mut Vec<char>, out: &mut Vec<String>| {
        match cjk.len() {
            0 => {}
            1 => out.push(cjk[0].to_string()),
            _ => out.extend(cjk.windows(2).map(|p| p.iter().collect::<String>())),
        }
        cjk.clear();
    };
    for c in s.chars() {
        if unspaced(c) {
            if !run.is_empty() {
                out.push(std::mem::take(&mut run));
            }
            cjk.push(c);
        } else if c.is_alphanumeric() {
            flush_cjk(&mut cjk, &mut out);
            run.extend(c.to_lowercase());
        } else {
            flush_cjk(&mut cjk, &mut out);
            if !run.is_empty() {
                out.push(std::mem::take(&mut run));
            }
        }
    }
    flush_cjk(&mut cjk, &mut out);
    if !run.is_empty() {
        out.push(run);
    }
    out
}

/// Words that say nothing of what a text is about.
const STOP: &[&str] = &[
    "the", "and", "for", "with", "into", "from", "that", "this", "then", "than", "are", "was",
    "were", "its", "our", "your", "all", "any", "can", "should", "will", "has", "have", "had",
    "been", "being", "not", "but", "you", "they", "them", "there", "here", "also", "just", "now",
    "der", "die", "das", "und", "mit", "für", "los", "las", "del", "con", "para", "une", "des",
];

/// The words that identify a text, distinct, by stem: not stop words; at least three characters,
/// a number, or a character pair of an unspaced script.
pub(crate) fn key_words(s: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    words(s)
        .into_iter()
        .filter(|w| {
            w.chars().any(unspaced)
                || w.chars().all(|c| c.is_ascii_digit())
                || (w.chars().count() >= 3 && !STOP.contains(&w.as_str()))
        })
        .map(|w| stem(&w).to_owned())
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// A word without its commonest English endings, so that the forms of one verb or noun meet
/// ("fixed", "fixes", "fixing" -> "fix"; "serialize", "serializing" -> "serializ"; "committed"
/// -> "commit"): for comparing a paraphrase with its source. Short words are left as they are.
pub(crate) fn stem(w: &str) -> &str {
    if !w.is_ascii() {
        return w;
    }
    for suffix in ["ing", "ied", "ies", "ed", "es", "s"] {
        if let Some(base) = w.strip_suffix(suffix)
            && base.len() >= 3
            // "pass", "status", "analysis" end in their own `s`.
            && !(suffix == "s" && base.ends_with(['s', 'u', 'i']))
        {
            return undoubled(base);
        }
    }
    // The silent `e` a suffix replaces ("serialize" as "serializ-ing").
    match w.strip_suffix('e') {
        Some(base) if base.len() >= 3 && !base.ends_with(['e', 'i', 'o', 'u', 'y']) => base,
        _ => w,
    }
}

/// A stem without the consonant doubled before its suffix ("committ-ed", "runn-ing"); a double
/// `l`, `s` or `z` is the word's own ("install", "pass", "buzz").
fn undoubled(base: &str) -> &str {
    let b = base.as_bytes();
    let n = b.len();
    let doubled = n >= 4
        && b[n - 1] == b[n - 2]
        && b[n - 1].is_ascii_lowercase()
        && !b"aeioulsz".contains(&b[n - 1]);
    if doubled { &base[..n - 1] } else { base }
}

/// The script most of a text's letters are in, as far as the comparison cares: unspaced
/// (Chinese, Japanese, Korean) or spaced (Latin, Cyrillic, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Script {
    /// Most letters are Han, kana or Hangul.
    Unspaced,
    /// Most letters are of a script that spaces its words.
    Spaced,
}

/// The script of `s` (`None`: no letters).
pub(crate) fn script(s: &str) -> Option<Script> {
    let (mut unspaced_n, mut spaced_n) = (0usize, 0usize);
    for c in s.chars().filter(|c| c.is_alphabetic()) {
        if unspaced(c) {
            unspaced_n += 1;
        } else {
            spaced_n += 1;
        }
    }
    // A Chinese sentence is shorter in characters than its English twin: weigh a Han character
    // as about three Latin letters.
    match (unspaced_n * 3, spaced_n) {
        (0, 0) => None,
        (u, s) if u > s => Some(Script::Unspaced),
        _ => Some(Script::Spaced),
    }
}

/// A language written in a spaced script, told by its commonest short words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Language {
    English,
    German,
    Spanish,
    French,
    Portuguese,
    Italian,
}

/// The language most of `s`'s function words belong to (`None`: too few to tell, or an
/// unspaced script).
pub(crate) fn language(s: &str) -> Option<Language> {
    #[rustfmt::skip]
    const MARKS: &[(Language, &[&str])] = &[
        (Language::English, &["the", "and", "is", "are", "was", "of", "to", "with", "for", "that", "it"]),
        (Language::German, &["der", "die", "das", "und", "ist", "sind", "mit", "nicht", "wurde", "den", "ein"]),
        (Language::Spanish, &["el", "los", "las", "y", "es", "son", "con", "para", "que", "se", "una"]),
        (Language::French, &["le", "les", "et", "est", "sont", "avec", "pour", "que", "des", "une", "du"]),
        (Language::Portuguese, &["o", "os", "as", "e", "é", "são", "com", "para", "que", "foi", "uma", "não"]),
        (Language::Italian, &["il", "gli", "e", "è", "sono", "con", "per", "che", "della", "una", "non"]),
    ];
    let ws = words(s);
    let mut best: Option<(Language, usize)> = None;
    for (lang, marks) in MARKS {
        let n = ws.iter().filter(|w| marks.contains(&w.as_str())).count();
        if n >= 2 && best.is_none_or(|(_, b)| n > b) {
            best = Some((*lang, n));
        }
    }
    best.map(|(l, _)| l)
}

/// The stems of all the words of `s`.
pub(crate) fn stems(s: &str) -> HashSet<String> {
    words(s).iter().map(|w| stem(w).to_owned()).collect()
}

/// A sentence's clauses: its own words cut at commas, semicolons, colons, dashes, parentheses and
/// "but", "while", "whereas", "although", "however", "except".
pub(crate) fn clauses(own: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new()];
    // "mul()" is a name, not a parenthesis that opens a clause.
    let own = own.replace("()", "");
    for piece in own.split([',', ';', ':', '(', ')', '—', '–', '，', '；', '：', '、']) {
        for w in words(piece) {
            if matches!(
                w.as_str(),
                "but"
                    | "while"
                    | "whereas"
                    | "although"
                    | "though"
                    | "however"
                    | "except"
                    | "aber"
                    | "pero"
            ) && !out.last().is_some_and(Vec::is_empty)
            {
                out.push(Vec::new());
            }
            if let Some(last) = out.last_mut() {
                last.push(w);
            }
        }
        if !out.last().is_some_and(Vec::is_empty) {
            out.push(Vec::new());
        }
    }
    out.retain(|c| !c.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspaced_runs_become_character_pairs() {
        assert_eq!(
            words("Fix 测试通过 now"),
            ["fix", "测试", "试通", "通过", "now"]
        );
        assert_eq!(words("中"), ["中"]);
    }

    #[test]
    fn forms_of_a_word_share_its_stem() {
        for forms in [
            ["serialize", "serializing", "serialized", "serializes"],
            ["commit", "committed", "committing", "commits"],
            ["update", "updated", "updating", "updates"],
            ["pass", "passed", "passing", "passes"],
            ["install", "installed", "installing", "installs"],
        ] {
            let stems: Vec<&str> = forms.iter().map(|w| stem(w)).collect();
            assert!(stems.iter().all(|s| *s == stems[0]), "{forms:?}: {stems:?}");
        }
        assert_eq!(stem("the"), "the");
        assert_eq!(stem("free"), "free");
    }

    #[test]
    fn key_words_are_stems_without_stop_words() {
        assert_eq!(key_words("Fixed the login bugs"), ["fix", "login", "bug"]);
        assert_eq!(key_words("add 2 tests"), ["add", "2", "test"]);
    }

    #[test]
    fn languages_by_their_function_words() {
        assert_eq!(
            language("The tests pass and the docs are updated."),
            Some(Language::English)
        );
        assert_eq!(
            language("Les tests passent et la doc est à jour avec les exemples."),
            Some(Language::French)
        );
        assert_eq!(
            language("Os testes passam e a documentação foi atualizada com os exemplos."),
            Some(Language::Portuguese)
        );
        assert_eq!(language("Add billing tests"), None);
    }

    #[test]
    fn the_script_weighs_han_characters() {
        assert_eq!(script("修复登录问题"), Some(Script::Unspaced));
        assert_eq!(script("Fix the login problem"), Some(Script::Spaced));
        assert_eq!(
            script("修复登录模块的问题 `src/login.rs`"),
            Some(Script::Unspaced)
        );
        assert_eq!(script("123"), None);
    }
}
