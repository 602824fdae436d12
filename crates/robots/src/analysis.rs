//! One file, parsed once and compiled at most once per built-in profile:
//! the shared input of the checker, the interpretation matrix and the
//! differential check.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::parse::RobotsTxt;
use crate::profile::Profile;
use crate::robots::Robots;

/// A parsed file and its compiled forms under the profiles of
/// [`Profile::ALL`], each compiled when first asked for and kept.
///
/// `robots check` asks three things of one file: the lints
/// ([`Analysis::check_bounded`]), the interpretation matrix
/// ([`Analysis::matrix`]) and the proof of the fixer's output
/// ([`Analysis::compare_fixed`]). Each needs the file compiled under every
/// profile; given one `Analysis`, they share one compile per profile.
///
/// ```
/// use botwarden_robots::{Analysis, Profile, RobotsTxt, fix};
///
/// let txt = RobotsTxt::parse("User-agent: *\nDisallow: /a\nAllow: /a/b\n");
/// let analysis = Analysis::new(&txt);
/// let checked = analysis.check_bounded();
/// let matrix = analysis.matrix(&Profile::ALL, &[]);
/// let equivalence = analysis.compare_fixed(&fix(&txt));
/// assert!(equivalence.holds());
/// assert_eq!(analysis.compiles(), Profile::ALL.len());
/// # let _ = (checked, matrix);
/// ```
#[derive(Debug)]
pub struct Analysis<'t> {
    txt: &'t RobotsTxt,
    /// In [`Profile::ALL`] order.
    compiled: [OnceLock<Robots>; Profile::ALL.len()],
    /// How many profiles were compiled.
    compiles: AtomicUsize,
    /// Raised by the caller to stop the work: what is left is skipped.
    cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl<'t> Analysis<'t> {
    /// An analysis of `txt`; nothing is compiled yet.
    #[must_use]
    pub fn new(txt: &'t RobotsTxt) -> Analysis<'t> {
        Analysis {
            txt,
            compiled: std::array::from_fn(|_| OnceLock::new()),
            compiles: AtomicUsize::new(0),
            cancel: None,
        }
    }

    /// The same analysis, stopped once `cancel` is raised: the lints, the
    /// matrix and the proof of the fixer's output look at it between their
    /// passes (each linear in the file), so a caller that gives up (a
    /// request timed out, a client gone) stops the work within one pass.
    /// What a cancelled analysis returns is incomplete; ask
    /// [`Analysis::is_cancelled`] before using it.
    #[must_use]
    pub fn cancelled_by(mut self, cancel: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// Whether the caller asked to stop.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// The parsed file.
    #[must_use]
    pub fn txt(&self) -> &'t RobotsTxt {
        self.txt
    }

    /// The file compiled under a built-in profile (one of
    /// [`Profile::ALL`]), compiled on first use; `None` for another
    /// profile.
    #[must_use]
    pub fn robots(&self, profile: &Profile) -> Option<&Robots> {
        let i = Profile::ALL.iter().position(|p| *p == profile)?;
        Some(self.compiled_at(i))
    }

    /// The file compiled under every built-in profile, in [`Profile::ALL`]
    /// order.
    pub fn all(&self) -> impl ExactSizeIterator<Item = (&'static Profile, &Robots)> + Clone {
        Profile::ALL
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, self.compiled_at(i)))
    }

    /// How many profiles have been compiled so far.
    #[must_use]
    pub fn compiles(&self) -> usize {
        self.compiles.load(Ordering::Relaxed)
    }

    fn compiled_at(&self, i: usize) -> &Robots {
        self.compiled[i].get_or_init(|| {
            self.compiles.fetch_add(1, Ordering::Relaxed);
            Robots::new(self.txt, Profile::ALL[i])
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_profile_is_compiled_once_and_only_when_asked() {
        let txt = RobotsTxt::parse("User-agent: *\nDisallow: /a\n");
        let analysis = Analysis::new(&txt);
        assert_eq!(analysis.compiles(), 0);
        let google = analysis.robots(&Profile::GOOGLE).expect("built in");
        assert!(!google.is_allowed(&crate::TokenChain::new(["x"]), "/a"));
        assert_eq!(analysis.compiles(), 1);
        assert_eq!(analysis.all().count(), Profile::ALL.len());
        assert_eq!(analysis.all().count(), Profile::ALL.len());
        assert_eq!(analysis.compiles(), Profile::ALL.len());
        let mut other = Profile::GOOGLE;
        other.name = "other";
        assert!(analysis.robots(&other).is_none());
    }
}
