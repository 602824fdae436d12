//! `--format text|json` (and `--log-format`): the one output format of the
//! commands that write text for people or JSON.

use std::fmt::Display;
use std::io::Write;

use anyhow::Result;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use serde::Serialize;

/// Text for people, or JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// Text for people.
    Text,
    /// JSON.
    Json,
}

impl Format {
    /// The value parser of a `--format` option (its default goes as
    /// `default_value = "text"`), with what each value writes in this
    /// command, shown by `--help`.
    pub(crate) fn parser(
        text: &'static str,
        json: &'static str,
    ) -> impl TypedValueParser<Value = Format> {
        PossibleValuesParser::new([
            PossibleValue::new("text").help(text),
            PossibleValue::new("json").help(json),
        ])
        .map(|value| {
            if value == "json" {
                Format::Json
            } else {
                Format::Text
            }
        })
    }

    /// Writes what a library reports: its `Display` as text, or its JSON,
    /// pretty, and a line end.
    pub(crate) fn write(
        self,
        out: &mut impl Write,
        value: &(impl Display + Serialize),
    ) -> Result<()> {
        match self {
            Format::Text => write!(out, "{value}")?,
            Format::Json => {
                serde_json::to_writer_pretty(&mut *out, value)?;
                writeln!(out)?;
            }
        }
        Ok(())
    }
}
