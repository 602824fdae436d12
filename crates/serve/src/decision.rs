//! The gate's decision on a request (`GET /verify`): a pure function of
//! what its User-Agent claims, what its signature gave, the verdict on
//! its address and the mode. Nothing here reads a header, asks DNS or
//! counts: the gate gathers the inputs and answers with the decision.

use std::borrow::Cow;
use std::sync::Arc;

use axum::http::StatusCode;
use botwarden_verify::{Claim, Evidence, Verdict};

/// `enforce`: a spoofed crawler is refused (`403`); else every request
/// is let through (`200`) with the verdict in its headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Enforce,
    Observe,
}

impl Mode {
    /// The mode of the `enforce` setting.
    pub(crate) fn of(enforce: bool) -> Mode {
        if enforce {
            Mode::Enforce
        } else {
            Mode::Observe
        }
    }
}

/// What a request's Web Bot Auth signature gave. One per request, on the
/// stack: its size is no matter.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum Signature {
    /// The request carries no signature fields.
    Absent,
    /// The signature was checked: `outcome` is `valid`, `invalid` or
    /// `unsigned` (signature fields without a `web-bot-auth` signature),
    /// and `verdict` what it gives for the claim, `None` when it says
    /// nothing of it.
    Checked {
        outcome: &'static str,
        verdict: Option<Verdict>,
    },
    /// The signature cannot decide: its keys could not be had
    /// (`undecided`), or it was not checked (`unchecked`: too many
    /// verifications waiting). `reason` says why.
    Undecided {
        outcome: &'static str,
        reason: String,
    },
}

impl Signature {
    /// The verdict the signature gives when it decides: a valid one
    /// (`verified`, or `spoofed` with a key of another bot) or an invalid
    /// one (`spoofed`). `None` when the address decides.
    pub(crate) fn decides(&self) -> Option<&Verdict> {
        match self {
            Signature::Checked { verdict, .. } => verdict.as_ref(),
            Signature::Absent | Signature::Undecided { .. } => None,
        }
    }
}

/// The verdict on the client's address.
#[derive(Debug)]
pub(crate) enum Address {
    /// The verifier's (or, when it could not work it out, `unknown`).
    Verdict(Arc<Verdict>),
    /// A trusted proxy's client-address header held no address.
    Unreadable,
}

/// Why the verdict is `unknown` when the proxy's header holds no address.
pub(crate) const UNREADABLE: &str = "the trusted proxy's client-address header holds no address";

/// What the gate answers.
#[derive(Debug)]
pub(crate) struct Decision<'a> {
    /// The verdict, answered in `X-Bot-*` and counted.
    pub(crate) verdict: Cow<'a, Verdict>,
    /// `403` for a spoofed crawler in enforce mode, else `200`.
    pub(crate) status: StatusCode,
    /// For a signed request, `X-Bot-Signature` (the check's outcome) and
    /// `X-Bot-Signature-Reason` (why it did not decide).
    pub(crate) signature: Option<(&'static str, Option<&'a str>)>,
}

/// The status of `verdict`'s answer in `mode`: `403` only for a spoofed
/// crawler in enforce mode.
pub(crate) fn status(verdict: &Verdict, mode: Mode) -> StatusCode {
    if mode == Mode::Enforce && matches!(verdict, Verdict::Spoofed { .. }) {
        StatusCode::FORBIDDEN
    } else {
        StatusCode::OK
    }
}

/// The gate's decision on a request that claims `claim`.
///
/// The signature decides when it can ([`Signature::decides`]); else the
/// `address` does, as for an unsigned request. A signature that does not
/// verify never makes the claim weaker: one whose keys could not be had,
/// that was not checked, or that says nothing of the claim leaves the
/// verdict to the address. `address` is `None` when it was not looked up
/// (the signature decided); were it missing where the signature does not
/// decide, the verdict would be `unknown`.
pub(crate) fn decide<'a>(
    claim: &Claim,
    signature: &'a Signature,
    address: Option<&'a Address>,
    mode: Mode,
) -> Decision<'a> {
    let verdict = match (signature.decides(), address) {
        (Some(verdict), _) => Cow::Borrowed(verdict),
        (None, Some(Address::Verdict(verdict))) => Cow::Borrowed(&**verdict),
        (None, Some(Address::Unreadable)) => Cow::Owned(unknown(claim, UNREADABLE)),
        (None, None) => Cow::Owned(unknown(claim, "the client's address was not verified")),
    };
    let status = status(&verdict, mode);
    let signature = match signature {
        Signature::Absent => None,
        Signature::Checked { outcome, .. } => Some((*outcome, None)),
        Signature::Undecided { outcome, reason } => Some((*outcome, Some(reason.as_str()))),
    };
    Decision {
        verdict,
        status,
        signature,
    }
}

/// An `unknown` verdict for a claim (`unverifiable` for a client the
/// registry does not know, `not-a-bot` for no bot: nothing to verify).
pub(crate) fn unknown(claim: &Claim, reason: &str) -> Verdict {
    match claim {
        Claim::Bot { name, .. } => Verdict::Unknown {
            bot: name.clone(),
            reason: reason.to_owned(),
            evidence: Evidence::default(),
        },
        Claim::Unregistered { name, category } => {
            Verdict::unregistered(name, Some(category.as_str()))
        }
        Claim::NotABot => Verdict::NotABot,
    }
}

#[cfg(test)]
mod tests {
    use botwarden_verify::Method;

    use super::*;

    fn searchbot() -> Claim {
        Claim::Bot {
            name: "Searchbot".to_owned(),
            category: Some("search".to_owned()),
        }
    }

    fn odd_crawler() -> Claim {
        Claim::Unregistered {
            name: "OddCrawler".to_owned(),
            category: "crawler".to_owned(),
        }
    }

    fn not_a_bot() -> Claim {
        Claim::NotABot
    }

    fn verified(by: Method) -> Verdict {
        Verdict::Verified {
            bot: "Searchbot".to_owned(),
            methods: vec![by],
            evidence: Evidence::default(),
        }
    }

    fn spoofed(reason: &str) -> Verdict {
        Verdict::Spoofed {
            bot: "Searchbot".to_owned(),
            reason: reason.to_owned(),
            evidence: Evidence::default(),
        }
    }

    fn unknown_dns() -> Verdict {
        Verdict::Unknown {
            bot: "Searchbot".to_owned(),
            reason: "DNS failed".to_owned(),
            evidence: Evidence::default(),
        }
    }

    fn unverifiable() -> Verdict {
        Verdict::unregistered("OddCrawler", Some("crawler"))
    }

    /// The address's verdicts a case may start from.
    #[derive(Clone, Copy, Debug)]
    enum Addr {
        Verified,
        Spoofed,
        Unknown,
        Unverifiable,
        NotABot,
        Unreadable,
        NotAsked,
    }

    fn address(a: Addr) -> Option<Address> {
        let v = match a {
            Addr::Verified => verified(Method::Fcrdns),
            Addr::Spoofed => spoofed("not its reverse DNS"),
            Addr::Unknown => unknown_dns(),
            Addr::Unverifiable => unverifiable(),
            Addr::NotABot => Verdict::NotABot,
            Addr::Unreadable => return Some(Address::Unreadable),
            Addr::NotAsked => return None,
        };
        Some(Address::Verdict(Arc::new(v)))
    }

    /// The signatures a case may carry.
    #[derive(Clone, Copy, Debug)]
    enum Sig {
        Absent,
        /// Valid, with a key of the claimed bot.
        Verified,
        /// Valid, with a key of another bot.
        OtherBotsKey,
        /// Valid, of an agent tied to no bot, on a bot without signature
        /// methods: says nothing of the claim.
        SaysNothing,
        /// Invalid: changed, expired, wrong key, replayed.
        Failed,
        /// Signature fields without a `web-bot-auth` signature.
        Unsigned,
        /// Keys unavailable.
        Undecided,
        /// Too many verifications waiting.
        Unchecked,
    }

    fn signature(s: Sig) -> Signature {
        let checked = |outcome, verdict| Signature::Checked { outcome, verdict };
        match s {
            Sig::Absent => Signature::Absent,
            Sig::Verified => checked("valid", Some(verified(Method::WebBotAuth))),
            Sig::OtherBotsKey => checked(
                "valid",
                Some(spoofed("signed with a key of Otherbot, not of Searchbot")),
            ),
            Sig::SaysNothing => checked("valid", None),
            Sig::Failed => checked(
                "invalid",
                Some(spoofed("Web Bot Auth signature: it has expired")),
            ),
            Sig::Unsigned => checked("unsigned", None),
            Sig::Undecided => Signature::Undecided {
                outcome: "undecided",
                reason: "the directory did not answer".to_owned(),
            },
            Sig::Unchecked => Signature::Undecided {
                outcome: "unchecked",
                reason: "too many verifications waiting".to_owned(),
            },
        }
    }

    /// One case: what the request claims, its signature, its address's
    /// verdict; the verdict and method answered, and the status in
    /// enforce and in observe mode.
    type Case = (
        fn() -> Claim,
        Sig,
        Addr,
        (&'static str, Option<&'static str>),
        u16,
    );

    const CASES: &[Case] = &[
        // Unsigned requests: the address decides.
        (
            searchbot,
            Sig::Absent,
            Addr::Verified,
            ("verified", Some("fcrdns")),
            200,
        ),
        (
            searchbot,
            Sig::Absent,
            Addr::Spoofed,
            ("spoofed", None),
            403,
        ),
        (
            searchbot,
            Sig::Absent,
            Addr::Unknown,
            ("unknown", None),
            200,
        ),
        (
            searchbot,
            Sig::Absent,
            Addr::Unreadable,
            ("unknown", None),
            200,
        ),
        (
            odd_crawler,
            Sig::Absent,
            Addr::Unverifiable,
            ("unverifiable", None),
            200,
        ),
        (
            odd_crawler,
            Sig::Absent,
            Addr::Unreadable,
            ("unverifiable", None),
            200,
        ),
        (
            not_a_bot,
            Sig::Absent,
            Addr::NotABot,
            ("not-a-bot", None),
            200,
        ),
        (
            not_a_bot,
            Sig::Absent,
            Addr::Unreadable,
            ("not-a-bot", None),
            200,
        ),
        // A signature that verifies decides, whatever the address.
        (
            searchbot,
            Sig::Verified,
            Addr::NotAsked,
            ("verified", Some("web_bot_auth")),
            200,
        ),
        (
            not_a_bot,
            Sig::Verified,
            Addr::NotAsked,
            ("verified", Some("web_bot_auth")),
            200,
        ),
        (
            searchbot,
            Sig::OtherBotsKey,
            Addr::NotAsked,
            ("spoofed", None),
            403,
        ),
        // A signature shown forged decides: spoofed.
        (
            searchbot,
            Sig::Failed,
            Addr::NotAsked,
            ("spoofed", None),
            403,
        ),
        // A signature that does not verify never makes the claim weaker:
        // the address decides, as for an unsigned request.
        (
            searchbot,
            Sig::Undecided,
            Addr::Verified,
            ("verified", Some("fcrdns")),
            200,
        ),
        (
            searchbot,
            Sig::Unchecked,
            Addr::Verified,
            ("verified", Some("fcrdns")),
            200,
        ),
        (
            searchbot,
            Sig::SaysNothing,
            Addr::Verified,
            ("verified", Some("fcrdns")),
            200,
        ),
        (
            searchbot,
            Sig::Unsigned,
            Addr::Verified,
            ("verified", Some("fcrdns")),
            200,
        ),
        (
            searchbot,
            Sig::Undecided,
            Addr::Unknown,
            ("unknown", None),
            200,
        ),
        (
            searchbot,
            Sig::Undecided,
            Addr::Spoofed,
            ("spoofed", None),
            403,
        ),
        (
            odd_crawler,
            Sig::Undecided,
            Addr::Unverifiable,
            ("unverifiable", None),
            200,
        ),
        (
            not_a_bot,
            Sig::Unsigned,
            Addr::NotABot,
            ("not-a-bot", None),
            200,
        ),
        // Not looked up where the signature does not decide: unknown.
        (
            searchbot,
            Sig::Undecided,
            Addr::NotAsked,
            ("unknown", None),
            200,
        ),
    ];

    #[test]
    fn decisions_by_claim_signature_address_and_mode() {
        for (claim, sig, addr, (kind, method), enforced) in CASES {
            let claim = claim();
            let signature = signature(*sig);
            let address = address(*addr);
            for mode in [Mode::Enforce, Mode::Observe] {
                let case = format!("{claim:?} {sig:?} {addr:?} {mode:?}");
                let d = decide(&claim, &signature, address.as_ref(), mode);
                assert_eq!(d.verdict.kind(), *kind, "{case}");
                assert_eq!(d.verdict.method().as_deref(), *method, "{case}");
                let status = if mode == Mode::Enforce {
                    *enforced
                } else {
                    200
                };
                assert_eq!(d.status.as_u16(), status, "{case}");
            }
        }
    }

    #[test]
    fn a_signed_request_reports_its_signature_beside_the_verdict() {
        let claim = searchbot();
        let address = address(Addr::Verified);
        for (sig, reported) in [
            (Sig::Absent, None),
            (Sig::Verified, Some(("valid", None))),
            (Sig::SaysNothing, Some(("valid", None))),
            (Sig::Failed, Some(("invalid", None))),
            (Sig::Unsigned, Some(("unsigned", None))),
            (
                Sig::Undecided,
                Some(("undecided", Some("the directory did not answer"))),
            ),
            (
                Sig::Unchecked,
                Some(("unchecked", Some("too many verifications waiting"))),
            ),
        ] {
            let signature = signature(sig);
            let d = decide(&claim, &signature, address.as_ref(), Mode::Enforce);
            assert_eq!(d.signature, reported, "{sig:?}");
        }
    }

    #[test]
    fn an_unreadable_address_is_unknown_with_its_reason() {
        let d = decide(
            &searchbot(),
            &Signature::Absent,
            Some(&Address::Unreadable),
            Mode::Enforce,
        );
        assert_eq!(d.verdict.reason(), Some(UNREADABLE));
        assert_eq!(d.verdict.bot(), Some("Searchbot"));
        // The address's own verdict is answered as it is, not copied.
        let address = address(Addr::Spoofed);
        let d = decide(
            &searchbot(),
            &Signature::Absent,
            address.as_ref(),
            Mode::Observe,
        );
        assert!(matches!(d.verdict, Cow::Borrowed(_)));
        assert_eq!(d.status, StatusCode::OK);
    }
}
