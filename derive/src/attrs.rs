//! The `#[state(...)]` attributes: a field's role, dirty bits and row kind, and a type's own
//! options.

use syn::{Attribute, Ident, Type};

/// How a `State` or `CloneState` field takes part, from its `#[state(...)]` attribute.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Part of the state (no attribute): packed, renamed, copied.
    Plain,
    /// `#[state(nested)]`: a value that is itself a `State` (packed by `pack_state`).
    Nested,
    /// `#[state(custom)]`: packed by the type's own `pack_FIELD`/`unpack_FIELD` methods (an
    /// encoding that depends on other fields); renamed and copied as a plain field.
    Custom,
    /// `#[state(config)]`: kept beside the state, not part of it (configuration, or the path's
    /// bookkeeping): copied, never packed nor renamed.
    Config,
    /// `#[state(transient)]`: meaningful only inside one step (empty between steps): copied,
    /// not packed, cleared (`Transient::clear`) when a state is unpacked into the value.
    Transient,
    /// `#[state(scratch)]`: a reused buffer: neither packed, renamed nor copied (a clone
    /// starts it empty).
    Scratch,
}

/// Which bits of the type's dirty mask (see [`TypeOptions::dirty_bits`]) mark a field
/// changed, from `#[state(dirty = BIT)]` (one mask for the field) or `#[state(dirty_each =
/// BITS)]` (an array field: one mask per element).
#[derive(Clone)]
pub(crate) enum DirtyBit {
    Whole(syn::Expr),
    Each(syn::Expr),
}

pub(crate) fn role(attrs: &[Attribute]) -> syn::Result<Role> {
    Ok(field_options(attrs)?.role)
}

/// What a field's `#[state(...)]` attributes say.
pub(crate) struct FieldOptions {
    role: Role,
    pub(crate) dirty: Option<DirtyBit>,
    /// `row = KIND`: how the field sits in the type's row (see
    /// [`derive_state`](crate::derive_state)).
    pub(crate) row: Option<Type>,
}

pub(crate) fn field_options(attrs: &[Attribute]) -> syn::Result<FieldOptions> {
    let mut o = FieldOptions {
        role: Role::Plain,
        dirty: None,
        row: None,
    };
    for a in attrs.iter().filter(|a| a.path().is_ident("state")) {
        a.parse_nested_meta(|m| {
            if m.path.is_ident("dirty") {
                o.dirty = Some(DirtyBit::Whole(m.value()?.parse()?));
                return Ok(());
            }
            if m.path.is_ident("dirty_each") {
                o.dirty = Some(DirtyBit::Each(m.value()?.parse()?));
                return Ok(());
            }
            if m.path.is_ident("row") {
                o.row = Some(m.value()?.parse()?);
                return Ok(());
            }
            o.role = if m.path.is_ident("nested") {
                Role::Nested
            } else if m.path.is_ident("custom") {
                Role::Custom
            } else if m.path.is_ident("config") {
                Role::Config
            } else if m.path.is_ident("transient") {
                Role::Transient
            } else if m.path.is_ident("scratch") {
                Role::Scratch
            } else {
                return Err(m.error(
                    "expected one of nested, custom, config, transient, scratch, dirty = BIT, \
                     dirty_each = BITS, row = KIND",
                ));
            };
            Ok(())
        })?;
    }
    Ok(o)
}

/// What a type's own `#[state(...)]` attribute says.
#[derive(Default)]
pub(crate) struct TypeOptions {
    /// `relabel_then = METHOD`: called after renaming (see `Relabel`).
    pub(crate) relabel_then: Option<Ident>,
    /// `dirty_bits = FIELD`: the integer field whose bits say which fields changed since the
    /// value was last a copy of another (see `Restore`).
    pub(crate) dirty_bits: Option<Ident>,
    /// `row = NAME`: the struct to generate with the type's row layout (see
    /// [`derive_state`](crate::derive_state)).
    pub(crate) row: Option<Ident>,
    /// `row_kinds = PATH`: the module of the row's kinds (its `Kind`, `Placer`, `Writer` and
    /// `Reader`).
    pub(crate) row_kinds: Option<syn::Path>,
}

pub(crate) fn type_options(attrs: &[Attribute]) -> syn::Result<TypeOptions> {
    let mut o = TypeOptions::default();
    for a in attrs.iter().filter(|a| a.path().is_ident("state")) {
        a.parse_nested_meta(|m| {
            if m.path.is_ident("relabel_then") {
                o.relabel_then = Some(m.value()?.parse::<Ident>()?);
            } else if m.path.is_ident("dirty_bits") {
                o.dirty_bits = Some(m.value()?.parse::<Ident>()?);
            } else if m.path.is_ident("row") {
                o.row = Some(m.value()?.parse::<Ident>()?);
            } else if m.path.is_ident("row_kinds") {
                o.row_kinds = Some(m.value()?.parse::<syn::Path>()?);
            } else {
                return Err(m.error(
                    "expected relabel_then = METHOD, dirty_bits = FIELD, row = NAME or \
                     row_kinds = PATH",
                ));
            }
            Ok(())
        })?;
    }
    Ok(o)
}
