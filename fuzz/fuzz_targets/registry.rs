//! Registry and extras files: any text gives problems with positions inside
//! the file, never a panic; a registry that reads cleanly reads back the
//! same from what `show` writes.

#![no_main]

use botwarden_verify::{RegistryBuilder, Severity};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // YAML breaks lines at `\n`, `\r\n` and a lone `\r`.
    let lines = text.replace("\r\n", "\n").matches(['\n', '\r']).count() + 2;
    let mut b = RegistryBuilder::new();
    b.add_file("fuzz.yaml", text);
    let (registry, problems) = b.build();
    for p in &problems {
        assert!(p.at.line >= 1 && p.at.line <= lines, "{p} outside the file");
    }
    let Some(registry) = registry else {
        assert!(problems.iter().any(|p| p.severity == Severity::Error));
        return;
    };
    let shown = registry.to_yaml();
    let mut again = RegistryBuilder::new();
    again.add_registry("shown.yaml", &shown);
    let (again, problems) = again.build();
    let again = again.unwrap_or_else(|| panic!("show wrote an invalid registry: {problems:?}\n{shown}"));
    assert_eq!(again.to_json(), registry.to_json());
});
