//! Stage 1, the input: the hook's JSON on stdin ([`hook_input`]), the client that ran the hook and
//! what it expects back (`client`), and every setting, resolved once from the environment
//! (`config`). Uses only the shared ground (`json`, `text`).

pub(crate) mod client;
pub(crate) mod config;
pub mod hook_input;
