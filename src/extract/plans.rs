//! The newest plan the user approved on the main thread: an `ExitPlanMode` call whose result
//! says so, with the plan from the call, the result's `toolUseResult`, and its file from the
//! result text or the `plan_mode_exit` attachment written beside it.

use super::Plan;
use crate::read::record::{Record, RecordKind, ToolUse};
use crate::read::wants::PLAN_APPROVED;

/// An approving result met before its `ExitPlanMode` call (results are newer than calls).
struct Candidate {
    call_id: String,
    text: Option<String>,
    file: Option<String>,
}

/// The plans fold.
#[derive(Default)]
pub(super) struct Plans {
    plan: Option<Plan>,
    candidate: Option<Candidate>,
    /// The newest `plan_mode_exit` attachment's plan file, not yet given to a plan.
    exit_file: Option<String>,
}

impl Plans {
    /// Whether a plan is still looked for.
    pub(super) fn wanted(&self) -> bool {
        self.plan.is_none()
    }

    /// A record; `wanted`: a plan is still looked for this far back.
    pub(super) fn record(&mut self, rec: &Record, wanted: bool) {
        if rec.kind == RecordKind::PlanExit {
            // Written next to the approval, before or after it: give the file to whichever
            // is met second.
            match &mut self.candidate {
                Some(c) if c.file.is_none() => c.file = rec.plan_file.clone(),
                _ if self.exit_file.is_none() => self.exit_file = rec.plan_file.clone(),
                _ => {}
            }
        }
        if wanted && self.candidate.is_none() {
            self.candidate = approval(rec, &mut self.exit_file);
        }
    }

    /// A tool call: the newest approval met its call, and older plans are superseded.
    pub(super) fn call(&mut self, tu: &ToolUse) {
        if tu.name == "ExitPlanMode"
            && let Some(c) = self
                .candidate
                .take_if(|c| !tu.id.is_empty() && c.call_id == tu.id)
        {
            self.plan = Plan::new(c.text.or_else(|| tu.plan.clone()), c.file);
        }
    }

    /// The plan; an approval whose call was not read (outside the window) still says what was
    /// approved.
    pub(super) fn finish(mut self) -> Option<Plan> {
        if self.plan.is_none()
            && let Some(c) = self.candidate.take()
        {
            self.plan = Plan::new(c.text, c.file);
        }
        self.plan
    }
}

/// The approval of a plan this record carries: a result that is not an error and says the user
/// approved it, with the plan from `toolUseResult` and its file from the result text,
/// `toolUseResult.filePath`, or the `plan_mode_exit` attachment met just before.
fn approval(rec: &Record, exit_file: &mut Option<String>) -> Option<Candidate> {
    let tr = rec
        .tool_results
        .iter()
        .find(|t| !t.is_error && !t.tool_use_id.is_empty() && t.head.contains(PLAN_APPROVED))?;
    let from_result = rec.plan_result.as_ref();
    Some(Candidate {
        call_id: tr.tool_use_id.clone(),
        text: from_result.map(|r| r.plan.clone()),
        file: tr
            .plan_file
            .clone()
            .or_else(|| from_result.and_then(|r| r.file.clone()))
            .or_else(|| exit_file.take()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::record::ToolResult;

    fn approved(id: &str, is_error: bool) -> Record {
        Record {
            tool_results: vec![ToolResult {
                tool_use_id: id.into(),
                is_error,
                head: "User has approved your plan. You can now start coding.".into(),
                plan_file: None,
                ..ToolResult::default()
            }],
            ..Record::empty(RecordKind::User)
        }
    }

    fn exit_plan(id: &str, plan: &str) -> ToolUse {
        ToolUse {
            id: id.into(),
            name: "ExitPlanMode".into(),
            plan: Some(plan.into()),
            ..ToolUse::default()
        }
    }

    #[test]
    fn an_approval_meets_its_call_and_takes_the_plan_file_beside_it() {
        let mut f = Plans::default();
        let exit = Record {
            plan_file: Some("/p/plan.md".into()),
            ..Record::empty(RecordKind::PlanExit)
        };
        f.record(&exit, true);
        f.record(&approved("p1", false), true);
        f.call(&exit_plan("p1", "# Retry\n1. backoff"));
        assert!(!f.wanted());
        let plan = f.finish().unwrap();
        assert_eq!(
            (plan.title.as_str(), plan.file.as_deref()),
            ("Retry", Some("/p/plan.md"))
        );
    }

    #[test]
    fn a_failed_or_unwanted_approval_is_no_plan() {
        let mut f = Plans::default();
        f.record(&approved("p1", true), true);
        f.call(&exit_plan("p1", "# No"));
        f.record(&approved("p2", false), false);
        f.call(&exit_plan("p2", "# Too far back"));
        assert_eq!(f.finish(), None);
    }
}
