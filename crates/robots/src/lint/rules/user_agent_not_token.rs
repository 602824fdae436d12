//! R006 `user-agent-not-token`: a user-agent value that is not a product token.

use crate::lint::{Context, Diagnostic, Edit};

declare_lint! {
    /// ## What it does
    /// Finds user-agent values with characters outside `[A-Za-z_-]`, such as
    /// a version or a whole User-Agent header.
    ///
    /// ## Why
    /// RFC 9309, Google, Bing and Yandex robots keep the leading product
    /// token and drop the rest (`Googlebot/2.1` names `googlebot`;
    /// `Mozilla/5.0 (compatible; bingbot)` names `mozilla`); strict robots
    /// look for the whole value inside their own name, and find it rarely.
    /// A name with digits (`MJ12bot`, `360Spider`) is cut at its first
    /// digit by those parsers, but the crawler that bears it compares its
    /// whole name: the lint then offers no rewrite, since `User-agent: MJ`
    /// would stop the crawler itself from finding its group.
    ///
    /// ## Example
    /// ```text
    /// User-agent: Googlebot/2.1
    /// ```
    ///
    /// ## Fix
    /// Write the product token alone: `User-agent: Googlebot`.
    "R006", "user-agent-not-token", Warning, "a user-agent value that is not a product token"
}

pub(crate) fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for block in &cx.blocks {
        for &i in &block.agents {
            let value = cx.value(i);
            if value.is_empty() || value.contains('*') || crate::token::is_product_token(&value) {
                continue;
            }
            let Some(token) = cx.token(i) else { continue };
            let Some(d) = cx.directive(i) else { continue };
            let written = &value[..token.len()];
            // The name as its crawler writes it: letters, digits, `_`, `-`.
            let word_len = value
                .bytes()
                .position(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
                .unwrap_or(value.len());
            let word = &value[..word_len];
            if !token.is_empty() && word.len() > token.len() {
                out.push(named_with_digits(d.value, &value, &token, word));
                continue;
            }
            let mut diag = Diagnostic::new(
                &LINT,
                d.value,
                format!(
                    "robots that compare product tokens (RFC 9309, Google, Bing, Yandex) read this as `{}`; strict robots look for `{}` in their name",
                    if token.is_empty() { "an empty token" } else { token.as_str() },
                    value.to_lowercase()
                ),
            );
            if !token.is_empty() {
                diag = diag
                    .help(format!("write the product token alone: `User-agent: {written}`"))
                    .fix(format!("keep `{written}`"), vec![Edit { span: d.value, replacement: written.to_owned() }]);
            }
            out.push(diag);
        }
    }
}

/// A name with digits (`MJ12bot`): what each reader matches, and no rewrite
/// that would cut the crawler's own name.
fn named_with_digits(span: crate::parse::Span, value: &str, token: &str, word: &str) -> Diagnostic {
    use crate::profile::AgentMatch;
    let cutting = crate::lint::readers(|p| p.agent_match == AgentMatch::ProductToken);
    let mut diag = Diagnostic::new(
        &LINT,
        span,
        format!(
            "{cutting} read this as `{token}` (a product token ends at its first digit); the crawler `{word}` compares its own whole name, and strict robots look for `{}` in their name",
            value.to_lowercase()
        ),
    );
    if value == word {
        diag = diag.help(format!(
            "keep `{word}` as the crawler documents it: `User-agent: {}` would stop `{word}` from finding its group; if robots named `{token}` must not read this group, give them one of their own",
            &value[..token.len()]
        ));
    } else {
        diag = diag
            .help(format!("write the name alone: `User-agent: {word}`"))
            .fix(format!("keep `{word}`"), vec![Edit { span, replacement: word.to_owned() }]);
    }
    diag
}
