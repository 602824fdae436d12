//! The bounds on what a request may bring.

/// The most bytes of robots.txt the service reads: the command's own cap
/// (10 MiB, twenty times what Google reads).
pub const MAX_BODY: usize = 10 * 1024 * 1024;

/// The most bytes of a request body: [`MAX_BODY`] and 1 MiB more for the
/// JSON around it (options, escapes). A larger body is refused with `413`.
pub const MAX_REQUEST_BODY: usize = MAX_BODY + 1024 * 1024;
