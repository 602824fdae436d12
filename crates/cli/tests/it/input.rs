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
fn a_closed_standard_output_is_an_error() {
    let file = crate::TempFile::new("robots.txt", b"User-agent: *\nDisallow: /x\n");
    let path = file.path.to_str().expect("UTF-8 path");
    // `>&-` closes descriptor 1 before botwarden starts.
    let out = std::process::Command::new("sh")
        .args(["-c", "exec \"$0\" robots check \"$1\" >&-"])
        .arg(env!("CARGO_BIN_EXE_botwarden"))
        .arg(path)
        .output()
        .expect("run sh");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("standard output is closed"), "{stderr}");

    // Sent to /dev/null on purpose: fine.
    let out = std::process::Command::new("sh")
        .args(["-c", "exec \"$0\" robots check \"$1\" >/dev/null"])
        .arg(env!("CARGO_BIN_EXE_botwarden"))
        .arg(path)
        .output()
        .expect("run sh");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}
