//! The branch walk: which records, met newest first, are on the conversation's current branch.
//!
//! The current branch is the `parentUuid` chain followed back from the newest record. When a
//! record's parent is not the next record met, the records met until that parent appears were on
//! a branch the user rewound away from: the folds hold what they met there ([`Step::Off`]) and
//! are told, when the parent appears, whether to drop it or keep it ([`Step::Rejoined`]).

use crate::read::record::Id;

/// Uuids remembered to recognise a parent link to a record already met (a newer one).
const RECENT_UUIDS: usize = 64;

/// Where the walk stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// The next record met is on the branch.
    Any,
    /// The branch continues at this record; others met first are off it.
    Parent(Id),
}

/// What one step of the walk says about a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// On the branch.
    On,
    /// Met while the walk waits for a parent: hold what it carries.
    Off,
    /// The awaited parent, on the branch. What was held was on an abandoned branch (`keep:
    /// false`) or, when the link went into an injected record, on the branch after all (`keep:
    /// true`): CLI 1.0.x hangs local commands off the session's first caveat record, which is no
    /// rewind (D004).
    Rejoined {
        /// Keep what was held.
        keep: bool,
    },
}

/// The walk's state: bounded (one awaited parent, a ring of recent uuids).
pub(super) struct Branch {
    expect: Expect,
    /// A ring of the uuids met last.
    recent: [Id; RECENT_UUIDS],
    next: usize,
}

impl Branch {
    pub(super) fn new() -> Branch {
        Branch {
            expect: Expect::Any,
            recent: [Id(0); RECENT_UUIDS],
            next: 0,
        }
    }

    /// Steps the walk to the record `uuid` (with its `parent` and `isMeta`).
    pub(super) fn step(&mut self, uuid: Id, parent: Option<Id>, meta: bool) -> Step {
        let step = match self.expect {
            Expect::Any => Step::On,
            Expect::Parent(p) if p == uuid => Step::Rejoined { keep: meta },
            Expect::Parent(_) => Step::Off,
        };
        if step != Step::Off {
            self.expect = match parent {
                // A parent already met (newer than its child) cannot be waited for.
                Some(p) if !self.recent.contains(&p) => Expect::Parent(p),
                _ => Expect::Any,
            };
        }
        self.recent[self.next] = uuid;
        self.next = (self.next + 1) % RECENT_UUIDS;
        step
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> Id {
        Id::of(s)
    }

    #[test]
    fn a_chain_stays_on_the_branch() {
        let mut b = Branch::new();
        assert_eq!(b.step(id("u3"), Some(id("u2")), false), Step::On);
        // Each parent is the one awaited: nothing was held, nothing is dropped.
        let parent = Step::Rejoined { keep: false };
        assert_eq!(b.step(id("u2"), Some(id("u1")), false), parent);
        assert_eq!(b.step(id("u1"), None, false), parent);
        assert_eq!(b.step(id("u0"), None, false), Step::On);
    }

    #[test]
    fn records_before_the_awaited_parent_are_off_and_dropped_at_a_rewind() {
        let mut b = Branch::new();
        assert_eq!(b.step(id("u3"), Some(id("a1")), false), Step::On);
        assert_eq!(b.step(id("a2"), Some(id("u2")), false), Step::Off);
        assert_eq!(b.step(id("u2"), Some(id("a1")), false), Step::Off);
        assert_eq!(
            b.step(id("a1"), Some(id("u1")), false),
            Step::Rejoined { keep: false }
        );
    }

    #[test]
    fn a_link_into_an_injected_record_keeps_what_was_held() {
        let mut b = Branch::new();
        b.step(id("e"), Some(id("c")), false);
        assert_eq!(b.step(id("u1"), Some(id("c")), false), Step::Off);
        assert_eq!(b.step(id("c"), None, true), Step::Rejoined { keep: true });
    }

    #[test]
    fn a_parent_already_met_is_not_waited_for() {
        let mut b = Branch::new();
        b.step(id("u2"), None, false);
        assert_eq!(b.step(id("u1"), Some(id("u2")), false), Step::On);
        assert_eq!(b.step(id("u0"), None, false), Step::On);
    }
}
