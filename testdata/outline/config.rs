//! Parsing of configuration files.
//!
//! The format is TOML-like.

use std::collections::HashMap;
use std::fmt;

/// The largest file read, in bytes.
pub const MAX_SIZE: usize = 1 << 20;

/// A parsed configuration.
#[derive(Debug, Clone)]
pub struct Config<'a> {
    /// The name of the service.
    pub name: &'a str,
    /// The settings, by key.
    settings: HashMap<String, String>,
}

impl<'a> Config<'a> {
    /// Parses a configuration from text.
    ///
    /// # Errors
    /// When a line is not `key = value`.
    pub fn parse(text: &'a str) -> Result<Self, Error> {
        let c = '{';
        let s = r#"a "quoted" {"#;
        Ok(Config { name: text, settings: HashMap::new() })
    }

    /// Looks a setting up.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.settings.get(key).map(|s| s.as_str())
    }
}

impl fmt::Display for Config<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)
    }
}

/// What went wrong.
pub enum Error {
    /// A line that is not a setting.
    BadLine(usize),
    /// The file is too large.
    TooLarge,
}

/// Reads a file's settings.
pub fn read<P>(path: P) -> Result<String, Error>
where
    P: AsRef<std::path::Path>,
{
    todo!()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        assert!(Config::parse("a = b").is_ok());
    }
}
