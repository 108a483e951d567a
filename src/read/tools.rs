//! The one list of tool names: which tools run a shell command, change a file, or keep the task
//! list, in every client the plugin reads (Claude Code, Codex). Every place that asks "is this a
//! run, an edit, a task tool" asks here.

/// Tools that run a shell command (Claude Code's `Bash`/`PowerShell`, Codex's exec tools).
pub const SHELL_TOOLS: &[&str] = &[
    "Bash",
    "PowerShell",
    "shell",
    "exec_command",
    "local_shell",
    "local_shell_call",
    "container.exec",
];

/// Tools that change a file they name (Claude Code's edit tools, Codex's `apply_patch`).
pub const EDIT_TOOLS: &[&str] = &[
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "apply_patch",
    "str_replace_based_edit_tool",
    "create_file",
];

/// Tools whose calls are the task list, reported as tasks rather than as actions.
pub const TASK_TOOLS: &[&str] = &[
    "TodoWrite",
    "update_plan", // Codex
    "TaskCreate",
    "TaskUpdate",
    "TaskList",
    "TaskGet",
];

/// Whether `tool` runs a shell command.
pub fn is_shell(tool: &str) -> bool {
    SHELL_TOOLS.contains(&tool)
}

/// Whether `tool` changes the files it names.
pub fn is_edit(tool: &str) -> bool {
    EDIT_TOOLS.contains(&tool)
}
