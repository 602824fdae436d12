//! Input and output limits every command keeps: endless input is refused,
//! a closed standard output is an error.

use crate::botwarden;

#[test]
fn endless_input_is_refused_not_read_to_the_end() {
    let out = botwarden(&["robots", "check", "/dev/zero"], b"");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("robots.txt '/dev/zero' is over 10485760 bytes (10 MiB)"),
        "{stderr}"
    );

    // Standard input: more than the cap, written until the reader stops.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(["robots", "check", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start botwarden");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let block = vec![b'#'; 1 << 20];
        let mut written = 0usize;
        // Stops at the first error: the reader closed its end.
        while written < (64 << 20) && stdin.write_all(&block).is_ok() {
            written += block.len();
        }
        written
    });
    let out = child.wait_with_output().expect("wait");
    let written = writer.join().expect("writer");
    assert!(written >= 10 << 20, "only {written} bytes were written");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("robots.txt on standard input is over 10485760 bytes (10 MiB)"),
        "{stderr}"
    );
}

#[test]
fn output_to_dev_null_opened_for_reading_and_writing_is_written() {
    // What Python's subprocess.DEVNULL, Go's os/exec and process
    // supervisors give a child: /dev/null opened read-write.
    let file = crate::TempFile::new("robots.txt", b"User-agent: *\nDisallow: /x\n");
    let path = file.path.to_str().expect("UTF-8 path");
    for args in [
        &["robots", "check", path][..],
        &["robots", "test", "--agent", "botwarden", path, "/x"][..],
        &["bots", "classify", "Googlebot/2.1"][..],
        &["crawl", "identity"][..],
    ] {
        let devnull = std::fs::File::options()
            .read(true)
            .write(true)
            .open("/dev/null")
            .expect("open /dev/null");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_botwarden"))
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(devnull)
            .output()
            .expect("run botwarden");
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {out:?}"
        );
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("closed"),
            "{args:?}: {out:?}"
        );
    }
}

#[test]
fn output_that_cannot_be_written_is_an_error_that_says_so() {
    let file = crate::TempFile::new("robots.txt", b"User-agent: *\nDisallow: /x\n");
    let path = file.path.to_str().expect("UTF-8 path");
    let full = std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .expect("open /dev/full");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_botwarden"))
        .args(["robots", "check", path])
        .stdout(full)
        .output()
        .expect("run botwarden");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("standard output") && stderr.contains("No space left on device"),
        "{stderr}"
    );
}
