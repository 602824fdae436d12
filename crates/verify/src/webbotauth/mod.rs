//! Web Bot Auth: crawlers that sign their requests with HTTP Message
//! Signatures (RFC 9421), as the IETF Web Bot Auth drafts profile them.
//!
//! A request carries `Signature-Input`, `Signature` and `Signature-Agent`
//! fields; the signature, tagged `web-bot-auth`, covers at least
//! `@authority` (and `Signature-Agent` when sent) and names its key by its
//! JWK thumbprint (RFC 7638). The key is in the signer's key directory
//! (`/.well-known/http-message-signatures-directory` of the agent's
//! origin), or listed in the registry.
//!
//! - [`RequestParts`]: the request as a signature sees it (method,
//!   authority, target, fields), borrowed from whatever front end has it.
//! - [`SignatureVerifier`]: checks a request at a given time against a
//!   [`KeyRing`] and remembers nonces ([`SignatureCheck`]); it never
//!   fetches: [`SignatureVerifier::agents`] says which key URLs a request
//!   needs, [`KeySet::from_directory`] reads a fetched directory.
//! - [`Signer`]: signs requests and makes keys and the directory to
//!   publish.
//!
//! The long description is `crates/verify/docs/webbotauth.md`.

mod agent_check;
mod base;
mod check;
mod digest;
mod directory;
mod failure;
mod fields;
mod keys;
mod owned;
mod signer;
mod verdict;

pub(crate) use verdict::agent_index;

pub use agent_check::{
    AgentCheck, AgentFinding, AgentSeverity, DirectoryHttp, DirectoryObservation, Effect,
    FormVerdict, KeySummary, Outcome, Reader, ReaderVerdict, SampleSummary, agent_directory_url,
    check_agent, sample_agent,
};
pub use base::RequestParts;
pub use check::{
    SignatureCheck, SignatureConfig, SignatureEvidence, SignatureStats, SignatureVerifier,
    SignedVerdictJson, WEB_BOT_AUTH_TAG, verify_message_signature,
};
pub use digest::{BodyDigest, check_content_digest, content_digest};
pub use directory::{
    DIRECTORY_TAG, DirectoryResponse, DirectorySignature, check_directory_response,
};
pub use failure::SignatureFailure;
pub use fields::{Agent, AgentKind, AgentReading, keys_url};
pub use keys::{
    AgentCard, CardKeys, DIRECTORY_MEDIA_TYPE, KeyAlgorithm, KeyOwner, KeyRing, KeySet, MediaType,
    PublicKey, WELL_KNOWN_DIRECTORY, ed25519_key, parse_agent_registry,
};
pub use owned::{OwnedRequest, header_field};
pub use signer::{AgentForm, SignatureHeaders, Signer};
