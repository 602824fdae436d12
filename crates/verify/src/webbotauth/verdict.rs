//! A request's verdict from its Web Bot Auth signature.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use super::check::{SignatureCheck, SignatureEvidence};
use super::keys::KeyOwner;
use crate::classify::Classifier;
use crate::registry::{Bot, Registry};
use crate::verdict::{Evidence, Method, Verdict};
use crate::verifier::{Claim, Verifier};

/// The bots by the key URLs of their `signature_agents`.
pub(crate) fn agent_index(registry: &Registry) -> HashMap<String, u32> {
    let mut out = HashMap::new();
    for (i, bot) in registry.bots().iter().enumerate() {
        let id = u32::try_from(i).unwrap_or(u32::MAX);
        for agent in &bot.signature_agents {
            if let Some(url) = super::keys_url(agent) {
                out.entry(url).or_insert(id);
            }
        }
    }
    out
}

fn evidence(signature: Option<&SignatureEvidence>) -> Evidence {
    Evidence {
        signature: signature.cloned(),
        ..Evidence::default()
    }
}

impl Verifier {
    /// The key URLs of every registered signature agent: what a fetcher
    /// keeps in the [`KeyRing`](super::KeyRing), besides the agents
    /// requests name.
    #[must_use]
    pub fn signature_agent_urls(&self) -> Vec<&str> {
        let mut urls: Vec<&str> = self.agents.keys().map(String::as_str).collect();
        urls.sort_unstable();
        urls
    }

    /// The bot whose `signature_agents` have their keys at `keys_url`.
    #[must_use]
    pub fn bot_of_agent(&self, keys_url: &str) -> Option<&Bot> {
        let id = *self.agents.get(keys_url)?;
        self.registry().bots().get(usize::try_from(id).ok()?)
    }

    fn key_owner_bot(&self, owner: Option<&KeyOwner>) -> Option<&str> {
        match owner? {
            KeyOwner::Registry(bot) => self
                .registry()
                .bots()
                .iter()
                .find(|b| &b.name == bot)
                .map(|b| b.name.as_str()),
            KeyOwner::Directory(url) => self.bot_of_agent(url).map(|b| b.name.as_str()),
        }
    }

    /// The verdict a request's signature check gives for what its
    /// User-Agent claims; `None` when the signature says nothing about the
    /// claim (an unsigned request, or a valid signature of an agent the
    /// registry does not tie to any bot, on a bot with no signature
    /// methods), so that the address decides.
    ///
    /// - valid, with a key of the claimed bot (its `signature_agents`
    ///   directory or its `signature_keys`): `verified` by `web_bot_auth`;
    ///   a key of a registered bot also verifies a request whose
    ///   User-Agent claims no bot;
    /// - valid, with a key of another bot, or of an unregistered agent when
    ///   the claimed bot has signature methods: `spoofed`;
    /// - invalid (changed, expired, wrong key or tag, replayed): `spoofed`;
    /// - keys unavailable (directory unreachable or not fetched): `unknown`.
    #[must_use]
    pub fn signature_verdict(&self, claim: &Claim, check: &SignatureCheck) -> Option<Verdict> {
        let claimed = match claim {
            Claim::Bot { name, .. } => Some(name.as_str()),
            Claim::Unregistered { .. } | Claim::NotABot => None,
        };
        let signer_name = |ev: Option<&SignatureEvidence>| -> String {
            let agent = ev.and_then(|e| e.agent.as_ref());
            agent
                .and_then(|a| self.bot_of_agent(&a.keys_url))
                .map(|b| b.name.clone())
                .or_else(|| agent.map(|a| a.uri.clone()))
                .or_else(|| ev.map(|e| format!("key {}", e.keyid)))
                .unwrap_or_else(|| "an unknown signer".to_owned())
        };
        match check {
            SignatureCheck::Unsigned => None,
            SignatureCheck::Valid(ev) => {
                let owner = self.key_owner_bot(ev.key_owner.as_ref());
                match (claimed, owner) {
                    (Some(c), Some(o)) if c.eq_ignore_ascii_case(o) => Some(Verdict::Verified {
                        bot: o.to_owned(),
                        methods: vec![Method::WebBotAuth],
                        evidence: evidence(Some(ev)),
                    }),
                    (Some(c), Some(o)) => Some(Verdict::Spoofed {
                        bot: c.to_owned(),
                        reason: format!("signed with a key of {o}, not of {c}"),
                        evidence: evidence(Some(ev)),
                    }),
                    (None, Some(o)) => Some(Verdict::Verified {
                        bot: o.to_owned(),
                        methods: vec![Method::WebBotAuth],
                        evidence: evidence(Some(ev)),
                    }),
                    (Some(c), None) => {
                        let bot = self.registry().bots().iter().find(|b| b.name == c)?;
                        if bot.signature_agents.is_empty() && bot.signature_keys.is_empty() {
                            return None;
                        }
                        Some(Verdict::Spoofed {
                            bot: c.to_owned(),
                            reason: format!(
                                "signed by {}, which is not one of {c}'s signature agents",
                                signer_name(Some(ev))
                            ),
                            evidence: evidence(Some(ev)),
                        })
                    }
                    (None, None) => Some(Verdict::Unverifiable {
                        bot: signer_name(Some(ev)),
                        reason: "a Web Bot Auth signature agent the registry does not know"
                            .to_owned(),
                    }),
                }
            }
            SignatureCheck::Invalid {
                failure,
                evidence: ev,
            } => Some(Verdict::Spoofed {
                bot: claimed.map_or_else(|| signer_name(ev.as_ref()), str::to_owned),
                reason: format!("Web Bot Auth signature: {failure}"),
                evidence: evidence(ev.as_ref()),
            }),
            SignatureCheck::Undecided {
                reason,
                evidence: ev,
            } => Some(Verdict::Unknown {
                bot: claimed.map_or_else(|| signer_name(Some(ev)), str::to_owned),
                reason: format!("Web Bot Auth signature: {reason}"),
                evidence: evidence(Some(ev)),
            }),
        }
    }

    /// The verdict on a request that may be signed: the signature's
    /// ([`Verifier::signature_verdict`]) when it decides, else the
    /// address's ([`Verifier::check_request`]). `signature` is the
    /// [`SignatureVerifier`](super::SignatureVerifier)'s check of the
    /// request (method, authority, target, fields, time).
    pub async fn check_signed_request(
        &self,
        classifier: &Classifier,
        address: IpAddr,
        ua: Option<&str>,
        bot: Option<&str>,
        signature: &SignatureCheck,
    ) -> Arc<Verdict> {
        let claim = Claim::asked(classifier, ua, bot);
        if let Some(v) = self.signature_verdict(&claim, signature) {
            return Arc::new(v);
        }
        self.check_request(classifier, address, ua, bot).await
    }

    /// The verdict on a request known by its signature alone (no client
    /// address): the signature's when it decides, else `unverifiable`,
    /// saying why.
    #[must_use]
    pub fn check_signed_without_address(
        &self,
        classifier: &Classifier,
        ua: Option<&str>,
        bot: Option<&str>,
        signature: &SignatureCheck,
    ) -> Verdict {
        let claim = Claim::asked(classifier, ua, bot);
        self.signature_verdict(&claim, signature)
            .unwrap_or_else(|| Verdict::Unverifiable {
                bot: bot.or(ua).unwrap_or("-").to_owned(),
                reason: match signature {
                    SignatureCheck::Unsigned => {
                        "the request is not signed and no address was given".to_owned()
                    }
                    _ => "the signature does not decide for this bot and no address was given"
                        .to_owned(),
                },
            })
    }
}
