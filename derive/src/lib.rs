//! Derives, from a type's one declaration, the forms a state takes in the drivers: its packed
//! bytes (`Pack`, `State`), the numbering of a small type's values (`Finite`), the renaming of
//! its request ids (`Relabel`) and its allocation-keeping copy and restore (`CloneState`). A
//! field or variant added to a state type is then packed, unpacked, numbered, renamed and
//! copied without being named anywhere else. A `State` type may also say how it sits in a row
//! of bytes of fixed layout (`#[state(row = ...)]`, see [`derive_state`]): a field added to it
//! then has a place in the row, or the type does not compile.
//!
//! The traits live in `cancelcheck_model::pack`; their documentation says what each
//! guarantees. The generated code names them by absolute path, so the derives work inside
//! `cancelcheck-model` too (it declares `extern crate self as cancelcheck_model`).
//!
//! Encoding, for a struct: the fields of type `bool` (one bit each) and `Option<bool>` (two
//! bits each: none, false, true) first, as one group of little-endian flag bytes, then every
//! other field in declaration order. For an enum: the variant's position as one byte, then its
//! fields in order. Bytes a derived `unpack` did not write are a `PackError`, never a panic:
//! unused flag bits, a two-bit value 3, a tag past the last variant.

#![warn(unreachable_pub)]

mod attrs;
mod clone_state;
mod fields;
mod finite;
mod flags;
mod pack;
mod relabel;
mod state;

use clone_state::expand_clone_state;
use finite::expand_finite;
use pack::expand_pack;
use proc_macro::TokenStream;
use relabel::expand_relabel;
use state::expand_state;
use syn::{DeriveInput, parse_macro_input};

/// `#[derive(Pack)]`: the packed form of a value type (a struct, or an enum of any variants).
#[proc_macro_derive(Pack)]
pub fn derive_pack(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand_pack(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `#[derive(Finite)]`: numbers every value of a type whose values are few (each field of
/// each variant itself `Finite`): the values of variant 0 first, then those of variant 1, and
/// within a variant its fields in mixed radix, the first field fastest. Derived from the
/// declaration, so a new variant or field is numbered without being named anywhere else.
#[proc_macro_derive(Finite)]
pub fn derive_finite(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand_finite(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `#[derive(Relabel)]`: renames every request id the value holds (each field in turn). On a
/// type, `#[state(relabel_then = METHOD)]` calls `self.METHOD()` afterwards (to restore an
/// order the renaming may break).
#[proc_macro_derive(Relabel, attributes(state))]
pub fn derive_relabel(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand_relabel(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `#[derive(State)]`: the packed form of a stateful struct, whose fields may be configuration
/// or scratch (see the `#[state(...)]` roles): `pack_state` writes the state's fields,
/// `unpack_state` reads them back into the value, keeping its configuration and allocations.
///
/// With `#[state(row = NAME, row_kinds = PATH)]` on the type, it also derives the layout of a
/// row of bytes holding the state: every field that is part of the state (every field `pack_state`
/// writes) says how it sits there with `#[state(row = KIND)]`, or the type does not compile (a
/// configuration or scratch field has no place in a row). `KIND` implements `PATH::Kind<T>` for
/// the field's type `T`. The derive generates `pub(crate) struct NAME`, one member per such
/// field (of its kind), with:
/// - an associated constant per field, its name in capitals: where the field's part of fixed
///   size (`Kind::SIZE` bytes) sits, the fields in declaration order; `HEAD` after them all;
/// - `place(&mut PATH::Placer) -> Option<NAME>`: each field's kind placed in declaration order
///   (a kind whose part has a size only known when running takes it past the head from the
///   placer);
/// - `put(&self, &T, &mut PATH::Writer) -> Option<()>` and `get(&self, &mut T, &PATH::Reader)
///   -> Result<(), PackError>`: every field written into a row, and read back, by its kind.
#[proc_macro_derive(State, attributes(state))]
pub fn derive_state(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand_state(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `#[derive(CloneState)]`: `Clone` whose `clone_from` copies field by field into what the
/// target holds (no allocation once its tables are large enough). A `#[state(scratch)]` field
/// is not copied (a clone starts it at its `Default`).
///
/// With `#[state(dirty_bits = FIELD)]` on the type, it also derives `Restore`: `restore_from`
/// copies a field marked `#[state(dirty = BIT)]` (or an element of one marked
/// `#[state(dirty_each = BITS)]`) only where its bit is set in `FIELD`, every other field
/// always, then clears `FIELD`; a clone starts with every bit set, and `clone_from` copies
/// everything.
#[proc_macro_derive(CloneState, attributes(state))]
pub fn derive_clone_state(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand_clone_state(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
