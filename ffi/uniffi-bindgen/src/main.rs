//! `uniffi-bindgen`: generates the Kotlin and Swift bindings of `libwaymark_ffi` in library
//! mode (`generate --library <lib> --language kotlin|swift --out-dir <dir>`); see
//! `bindings/generate.sh`.
fn main() {
    uniffi::uniffi_bindgen_main()
}
