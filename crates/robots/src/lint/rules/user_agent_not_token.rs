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
