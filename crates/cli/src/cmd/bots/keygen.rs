//! `botwarden bots keygen`: a key pair for signing requests, and the key
//! directory to publish.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use botwarden_verify::{DIRECTORY_MEDIA_TYPE, Signer, WELL_KNOWN_DIRECTORY};
use clap::Args;

/// Arguments of `botwarden bots keygen`.
#[derive(Debug, Args)]
pub(crate) struct KeygenArgs {
    /// The folder to write `private-key.jwk` and
    /// `http-message-signatures-directory` in (made if missing).
    #[arg(long, value_name = "DIR", default_value = ".")]
    out: PathBuf,
    /// Write the private key in PKCS#8 PEM (`private-key.pem`) too.
    #[arg(long)]
    pem: bool,
}

/// Writes a new file, readable by its owner alone when `secret`; never
/// replaces one.
fn write_new(path: &Path, body: &str, secret: bool) -> Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if secret {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = secret;
    let mut f = options.open(path).with_context(|| {
        if path.exists() {
            format!("{} exists; it is not overwritten", path.display())
        } else {
            format!("cannot create {}", path.display())
        }
    })?;
    f.write_all(body.as_bytes())
        .and_then(|()| f.write_all(b"\n"))
        .with_context(|| format!("cannot write {}", path.display()))
}

pub(crate) fn run(args: &KeygenArgs) -> Result<ExitCode> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let private = args.out.join("private-key.jwk");
    let pem = args.out.join("private-key.pem");
    let directory = args.out.join("http-message-signatures-directory");
    for p in [&private, &directory]
        .into_iter()
        .chain(args.pem.then_some(&pem))
    {
        if p.exists() {
            bail!(
                "{} exists; it is not overwritten (choose another --out)",
                p.display()
            );
        }
    }
    let signer = Signer::generate()?;
    write_new(&private, &signer.private_jwk(), true)?;
    if args.pem {
        write_new(&pem, signer.private_pem().trim_end(), true)?;
    }
    write_new(&directory, &signer.directory_json(), false)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "keyid\t{}", signer.keyid())?;
    writeln!(out, "private key\t{}", private.display())?;
    if args.pem {
        writeln!(out, "private key (PEM)\t{}", pem.display())?;
    }
    writeln!(
        out,
        "directory\t{} (publish at {WELL_KNOWN_DIRECTORY} as {DIRECTORY_MEDIA_TYPE})",
        directory.display()
    )?;
    Ok(ExitCode::SUCCESS)
}
