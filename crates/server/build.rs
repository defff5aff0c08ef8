//! Embeds the front end: lists every servable file under `web/` at the repository root (skipping
//! `node_modules`, `tests`, dot-files and the npm manifests) as `include_bytes!` entries in
//! `$OUT_DIR/web_files.rs`. A missing `web/` folder gives an empty list, and the build still works.

use std::{
    env, fs,
    path::{Path, PathBuf},
};

const SKIP_DIRS: [&str; 3] = ["node_modules", "tests", "target"];
const SKIP_FILES: [&str; 2] = ["package.json", "package-lock.json"];

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = e.path();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            if !SKIP_DIRS.contains(&name.as_str()) {
                println!("cargo:rerun-if-changed={}", path.display());
                walk(root, &path, out);
            }
        } else if ft.is_file() && !SKIP_FILES.contains(&name.as_str()) {
            if let Ok(rel) = path.strip_prefix(root) {
                let rel = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((rel, path.clone()));
            }
        }
    }
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    let web = manifest.join("../../web");
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap_or_else(|_| ".".into()));
    let mut files = Vec::new();
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", web.display());
    if web.is_dir() {
        let root = web.canonicalize().unwrap_or(web.clone());
        walk(&root, &root, &mut files);
    }
    let mut src =
        String::from("/// Every embedded file of `web/`: (path relative to `web/`, contents).\n");
    src.push_str("pub static FILES: &[(&str, &[u8])] = &[\n");
    for (rel, path) in &files {
        src.push_str(&format!(
            "    ({rel:?}, include_bytes!({:?})),\n",
            path.display().to_string()
        ));
    }
    src.push_str("];\n");
    if let Err(e) = fs::write(out_dir.join("web_files.rs"), src) {
        panic!("writing web_files.rs: {e}");
    }
}
