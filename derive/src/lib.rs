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

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::{
    Attribute, Data, DeriveInput, Fields, GenericArgument, Ident, Index, Member, PathArguments,
    Type, parse_macro_input,
};

/// How a `State` or `CloneState` field takes part, from its `#[state(...)]` attribute.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
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
enum DirtyBit {
    Whole(syn::Expr),
    Each(syn::Expr),
}

fn role(attrs: &[Attribute]) -> syn::Result<Role> {
    Ok(field_options(attrs)?.role)
}

/// What a field's `#[state(...)]` attributes say.
struct FieldOptions {
    role: Role,
    dirty: Option<DirtyBit>,
    /// `row = KIND`: how the field sits in the type's row (see [`derive_state`]).
    row: Option<Type>,
}

fn field_options(attrs: &[Attribute]) -> syn::Result<FieldOptions> {
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
struct TypeOptions {
    /// `relabel_then = METHOD`: called after renaming (see `Relabel`).
    relabel_then: Option<Ident>,
    /// `dirty_bits = FIELD`: the integer field whose bits say which fields changed since the
    /// value was last a copy of another (see `Restore`).
    dirty_bits: Option<Ident>,
    /// `row = NAME`: the struct to generate with the type's row layout (see [`derive_state`]).
    row: Option<Ident>,
    /// `row_kinds = PATH`: the module of the row's kinds (its `Kind`, `Placer`, `Writer` and
    /// `Reader`).
    row_kinds: Option<syn::Path>,
}

fn type_options(attrs: &[Attribute]) -> syn::Result<TypeOptions> {
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

/// How many flag bits a field of this type takes in the flag group (0: not a flag).
fn flag_width(ty: &Type) -> u32 {
    let Type::Path(p) = ty else { return 0 };
    let Some(last) = p.path.segments.last() else {
        return 0;
    };
    if p.path.segments.len() == 1 && last.ident == "bool" && last.arguments.is_empty() {
        return 1;
    }
    if last.ident == "Option"
        && let PathArguments::AngleBracketed(args) = &last.arguments
        && let Some(GenericArgument::Type(inner)) = args.args.first()
        && flag_width(inner) == 1
    {
        return 2;
    }
    0
}

/// One field: how to reach it, its type and its role.
struct Field {
    member: Member,
    /// A local name for it in generated code.
    local: Ident,
    ty: Type,
    role: Role,
}

fn fields_of(fields: &Fields, with_roles: bool) -> syn::Result<Vec<Field>> {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let member = match &f.ident {
                Some(id) => Member::Named(id.clone()),
                None => Member::Unnamed(Index::from(i)),
            };
            let local = match &f.ident {
                Some(id) => format_ident!("f_{}", id),
                None => format_ident!("f_{}", i),
            };
            let role = if with_roles {
                role(&f.attrs)?
            } else {
                Role::Plain
            };
            Ok(Field {
                member,
                local,
                ty: f.ty.clone(),
                role,
            })
        })
        .collect()
}

/// Whether a field's type is written `u8` (packed as itself: one byte).
fn is_byte(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("u8"))
}

fn packed(f: &Field) -> bool {
    matches!(f.role, Role::Plain | Role::Nested | Role::Custom)
}

/// Code that appends the flag group of `flags` (each `(value expression, width)`).
fn pack_flags(flags: &[(Tokens, u32)]) -> Tokens {
    let bits: u32 = flags.iter().map(|f| f.1).sum();
    if bits == 0 {
        return quote! {};
    }
    let bytes = bits.div_ceil(8) as usize;
    let mut shift = 0u32;
    let parts = flags.iter().map(|(value, width)| {
        let s = shift;
        shift += width;
        if *width == 1 {
            quote! { __flags |= (::core::primitive::u64::from(#value)) << #s; }
        } else {
            quote! {
                __flags |= (match #value {
                    ::core::option::Option::None => 0u64,
                    ::core::option::Option::Some(false) => 1u64,
                    ::core::option::Option::Some(true) => 2u64,
                }) << #s;
            }
        }
    });
    quote! {
        let mut __flags: u64 = 0;
        #(#parts)*
        __out.extend_from_slice(&__flags.to_le_bytes()[..#bytes]);
    }
}

/// Code that reads the flag group into `__flags`, refusing bits no field uses.
fn unpack_flags(flags_bits: u32, what: &str) -> Tokens {
    if flags_bits == 0 {
        return quote! {};
    }
    let bytes = flags_bits.div_ceil(8) as usize;
    quote! {
        let mut __flags: u64 = 0;
        for (__i, &__b) in __r.take(#bytes, #what)?.iter().enumerate() {
            __flags |= u64::from(__b) << (8 * __i);
        }
        if __flags >> #flags_bits != 0 {
            return ::core::result::Result::Err(
                ::cancelcheck_model::pack::PackError::BadTag(#what, (__flags >> #flags_bits) as u8),
            );
        }
    }
}

/// The value of a flag field of `width` bits at bit `shift` of `__flags`.
fn flag_value(width: u32, shift: u32, what: &str) -> Tokens {
    if width == 1 {
        quote! { (__flags >> #shift) & 1 == 1 }
    } else {
        quote! {
            match (__flags >> #shift) & 3 {
                0 => ::core::option::Option::None,
                1 => ::core::option::Option::Some(false),
                2 => ::core::option::Option::Some(true),
                _ => return ::core::result::Result::Err(
                    ::cancelcheck_model::pack::PackError::BadTag(#what, 3),
                ),
            }
        }
    }
}

/// `#[derive(Pack)]`: the packed form of a value type (a struct, or an enum of any variants).
#[proc_macro_derive(Pack)]
pub fn derive_pack(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand_pack(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

fn expand_pack(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let what = name.to_string();
    let (pack, unpack) = match &input.data {
        Data::Struct(s) => {
            let fields = fields_of(&s.fields, false)?;
            let (pack, unpack) = pack_struct_fields(&fields, &what, |m| quote! { self.#m });
            let build = build(&quote! { Self }, &s.fields, &fields);
            (pack, quote! { #unpack ::core::result::Result::Ok(#build) })
        }
        Data::Enum(e) => {
            if e.variants.len() > 256 {
                return Err(syn::Error::new(
                    Span::call_site(),
                    "Pack: over 256 variants",
                ));
            }
            let mut packs = Vec::new();
            let mut unpacks = Vec::new();
            for (tag, v) in e.variants.iter().enumerate() {
                let tag = tag as u8;
                let vname = &v.ident;
                let fields = fields_of(&v.fields, false)?;
                let locals: Vec<&Ident> = fields.iter().map(|f| &f.local).collect();
                // (A variant's pattern reads as the expression that builds it.)
                let pattern = build(&quote! { Self::#vname }, &v.fields, &fields);
                packs.push(quote! {
                    #pattern => {
                        __out.push(#tag);
                        #( ::cancelcheck_model::pack::Pack::pack(#locals, __out); )*
                    }
                });
                let tys = fields.iter().map(|f| &f.ty);
                let build = build(&quote! { Self::#vname }, &v.fields, &fields);
                unpacks.push(quote! {
                    #tag => {
                        #( let #locals = <#tys as ::cancelcheck_model::pack::Pack>::unpack(__r)?; )*
                        ::core::result::Result::Ok(#build)
                    }
                });
            }
            (
                quote! { match self { #(#packs)* } },
                quote! {
                    match __r.u8(#what)? {
                        #(#unpacks)*
                        __t => ::core::result::Result::Err(
                            ::cancelcheck_model::pack::PackError::BadTag(#what, __t),
                        ),
                    }
                },
            )
        }
        Data::Union(_) => return Err(no_unions("Pack")),
    };
    let (imp, ty, wh) = input.generics.split_for_impl();
    Ok(quote! {
        impl #imp ::cancelcheck_model::pack::Pack for #name #ty #wh {
            #[inline]
            fn pack(&self, __out: &mut ::std::vec::Vec<u8>) {
                #pack
            }
            #[inline]
            fn unpack(
                __r: &mut ::cancelcheck_model::pack::Reader<'_>,
            ) -> ::core::result::Result<Self, ::cancelcheck_model::pack::PackError> {
                #unpack
            }
        }
    })
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

/// One variant's (or a struct's) share of the numbering: its number of values, the index of a
/// value matched into `fields`' locals (within the share), and the code that builds a value
/// from an index within the share held in `__i`.
fn finite_share(path: &Tokens, shape: &Fields, fields: &[Field]) -> (Tokens, Tokens, Tokens) {
    let tys: Vec<&Type> = fields.iter().map(|f| &f.ty).collect();
    let count = quote! { 1usize #( * <#tys as ::cancelcheck_model::pack::Finite>::COUNT )* };
    let index = fields.iter().rev().fold(quote! { 0usize }, |acc, f| {
        let (local, ty) = (&f.local, &f.ty);
        quote! {
            ::cancelcheck_model::pack::Finite::index(#local)
                + <#ty as ::cancelcheck_model::pack::Finite>::COUNT * (#acc)
        }
    });
    let reads = fields.iter().map(|f| {
        let (local, ty) = (&f.local, &f.ty);
        quote! {
            let #local = <#ty as ::cancelcheck_model::pack::Finite>::from_index(
                __i % <#ty as ::cancelcheck_model::pack::Finite>::COUNT,
            )?;
            let __i = __i / <#ty as ::cancelcheck_model::pack::Finite>::COUNT;
        }
    });
    let value = build(path, shape, fields);
    (
        count,
        index,
        quote! { #(#reads)* let _ = __i; ::core::option::Option::Some(#value) },
    )
}

fn expand_finite(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let (count, index, from) = match &input.data {
        Data::Struct(s) => {
            let fields = fields_of(&s.fields, false)?;
            let (count, index, from) = finite_share(&quote! { Self }, &s.fields, &fields);
            let pattern = build(&quote! { Self }, &s.fields, &fields);
            (
                count,
                quote! { let #pattern = self; #index },
                quote! { if __i >= Self::COUNT { return ::core::option::Option::None; } #from },
            )
        }
        Data::Enum(e) => {
            let mut counts = Vec::new();
            let mut arms = Vec::new();
            let mut froms = Vec::new();
            for v in &e.variants {
                let vname = &v.ident;
                let fields = fields_of(&v.fields, false)?;
                let path = quote! { Self::#vname };
                let (count, index, from) = finite_share(&path, &v.fields, &fields);
                let pattern = build(&path, &v.fields, &fields);
                let before = quote! { 0usize #( + #counts )* };
                arms.push(quote! { #pattern => (#before) + (#index), });
                froms.push(quote! {
                    if __i < #count {
                        return { #from };
                    }
                    let __i = __i - #count;
                });
                counts.push(count);
            }
            (
                quote! { 0usize #( + #counts )* },
                quote! { match self { #(#arms)* } },
                quote! { #(#froms)* let _ = __i; ::core::option::Option::None },
            )
        }
        Data::Union(_) => return Err(no_unions("Finite")),
    };
    let (imp, ty, wh) = input.generics.split_for_impl();
    Ok(quote! {
        impl #imp ::cancelcheck_model::pack::Finite for #name #ty #wh {
            const COUNT: usize = #count;
            #[inline]
            #[allow(unused_variables)]
            fn index(&self) -> usize {
                #index
            }
            #[allow(unused_variables)]
            fn from_index(__i: usize) -> ::core::option::Option<Self> {
                #from
            }
        }
    })
}

/// A struct's fields, packed (flags first) and read into locals.
fn pack_struct_fields(
    fields: &[Field],
    what: &str,
    access: impl Fn(&Member) -> Tokens,
) -> (Tokens, Tokens) {
    let flags: Vec<(Tokens, u32)> = fields
        .iter()
        .filter(|f| flag_width(&f.ty) > 0)
        .map(|f| (access(&f.member), flag_width(&f.ty)))
        .collect();
    let bits: u32 = flags.iter().map(|f| f.1).sum();
    let pack_flags = pack_flags(&flags);
    let others: Vec<&Field> = fields.iter().filter(|f| flag_width(&f.ty) == 0).collect();
    // Consecutive `u8` fields are one run of bytes, written as one slice and read as one (the
    // same bytes as field by field, without a length check per byte).
    let runs: Vec<&[&Field]> = others
        .chunk_by(|a, b| is_byte(&a.ty) && is_byte(&b.ty))
        .collect();
    let pack_others = runs.iter().map(|run| match run {
        [f] => {
            let a = access(&f.member);
            quote! { ::cancelcheck_model::pack::Pack::pack(&#a, __out); }
        }
        _ => {
            let a = run.iter().map(|f| access(&f.member));
            quote! { __out.extend_from_slice(&[#(#a),*]); }
        }
    });
    let mut shift = 0;
    let read_flags = fields.iter().filter(|f| flag_width(&f.ty) > 0).map(|f| {
        let w = flag_width(&f.ty);
        let v = flag_value(w, shift, what);
        shift += w;
        let local = &f.local;
        quote! { let #local = #v; }
    });
    let read_others = runs.iter().map(|run| match run {
        [f] => {
            let (local, ty) = (&f.local, &f.ty);
            quote! { let #local = <#ty as ::cancelcheck_model::pack::Pack>::unpack(__r)?; }
        }
        _ => {
            let n = run.len();
            let locals = run.iter().map(|f| &f.local);
            // (`u8`'s own unpacking names a short read "byte".)
            quote! {
                let [#(#locals),*] = __r.array::<#n>("byte")?;
            }
        }
    });
    let unpack_flags = unpack_flags(bits, what);
    (
        quote! { #pack_flags #(#pack_others)* },
        quote! { #unpack_flags #(#read_flags)* #(#read_others)* },
    )
}

/// The error for a derive asked of a union.
fn no_unions(derive: &str) -> syn::Error {
    syn::Error::new(
        Span::call_site(),
        format!("{derive}: unions are not supported"),
    )
}

/// The expression that builds `path` from the locals of `fields`.
fn build(path: &Tokens, shape: &Fields, fields: &[Field]) -> Tokens {
    let locals = fields.iter().map(|f| &f.local);
    match shape {
        Fields::Named(_) => {
            let members = fields.iter().map(|f| &f.member);
            quote! { #path { #(#members: #locals),* } }
        }
        Fields::Unnamed(_) => quote! { #path ( #(#locals),* ) },
        Fields::Unit => quote! { #path },
    }
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

fn expand_relabel(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let then = type_options(&input.attrs)?
        .relabel_then
        .map(|m| quote! { self.#m(); })
        .unwrap_or_default();
    let body = match &input.data {
        Data::Struct(s) => {
            let fields = fields_of(&s.fields, true)?;
            let each = fields
                .iter()
                .filter(|f| matches!(f.role, Role::Plain | Role::Nested | Role::Custom))
                .map(|f| {
                    let m = &f.member;
                    quote! { ::cancelcheck_model::pack::Relabel::relabel(&mut self.#m, __f); }
                });
            quote! { #(#each)* }
        }
        Data::Enum(e) => {
            let arms = e.variants.iter().map(|v| {
                let vname = &v.ident;
                let fields = fields_of(&v.fields, false).unwrap_or_default();
                let locals: Vec<&Ident> = fields.iter().map(|f| &f.local).collect();
                // (A variant's pattern reads as the expression that builds it.)
                let pattern = build(&quote! { Self::#vname }, &v.fields, &fields);
                quote! {
                    #pattern => {
                        #( ::cancelcheck_model::pack::Relabel::relabel(#locals, __f); )*
                    }
                }
            });
            quote! { match self { #(#arms)* } }
        }
        Data::Union(_) => return Err(no_unions("Relabel")),
    };
    let (imp, ty, wh) = input.generics.split_for_impl();
    Ok(quote! {
        impl #imp ::cancelcheck_model::pack::Relabel for #name #ty #wh {
            #[inline]
            #[allow(unused_variables)]
            fn relabel<__F: ::core::ops::Fn(::cancelcheck_model::RequestId) -> ::cancelcheck_model::RequestId>(
                &mut self,
                __f: &__F,
            ) {
                #body
                #then
            }
        }
    })
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

fn named_struct<'a>(input: &'a DeriveInput, derive: &str) -> syn::Result<&'a Fields> {
    match &input.data {
        Data::Struct(s) if matches!(s.fields, Fields::Named(_)) => Ok(&s.fields),
        _ => Err(syn::Error::new(
            input.ident.span(),
            format!("{derive}: only structs with named fields"),
        )),
    }
}

fn expand_state(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let what = name.to_string();
    let fields = fields_of(named_struct(input, "State")?, true)?;
    let flag_fields: Vec<&Field> = fields
        .iter()
        .filter(|f| f.role == Role::Plain && flag_width(&f.ty) > 0)
        .collect();
    let flags: Vec<(Tokens, u32)> = flag_fields
        .iter()
        .map(|f| {
            let m = &f.member;
            (quote! { self.#m }, flag_width(&f.ty))
        })
        .collect();
    let bits: u32 = flags.iter().map(|f| f.1).sum();
    let pack_flags = pack_flags(&flags);
    let unpack_flags = unpack_flags(bits, &what);
    let mut shift = 0;
    let read_flags = flag_fields.iter().map(|f| {
        let w = flag_width(&f.ty);
        let v = flag_value(w, shift, &what);
        shift += w;
        let m = &f.member;
        quote! { self.#m = #v; }
    });
    let body: Vec<&Field> = fields
        .iter()
        .filter(|f| packed(f) && !(f.role == Role::Plain && flag_width(&f.ty) > 0))
        .collect();
    let packs = body.iter().map(|f| {
        let m = &f.member;
        match f.role {
            Role::Nested => {
                quote! { ::cancelcheck_model::pack::State::pack_state(&self.#m, __out); }
            }
            Role::Custom => {
                let method = format_ident!("pack_{}", member_name(m));
                quote! { self.#method(__out); }
            }
            _ => quote! { ::cancelcheck_model::pack::Pack::pack(&self.#m, __out); },
        }
    });
    let unpacks = body.iter().map(|f| {
        let m = &f.member;
        match f.role {
            Role::Nested => {
                quote! { ::cancelcheck_model::pack::State::unpack_state(&mut self.#m, __r)?; }
            }
            Role::Custom => {
                let method = format_ident!("unpack_{}", member_name(m));
                quote! { self.#method(__r)?; }
            }
            _ => quote! { ::cancelcheck_model::pack::Pack::unpack_into(&mut self.#m, __r)?; },
        }
    });
    let clears = fields
        .iter()
        .filter(|f| f.role == Role::Transient)
        .map(|f| {
            let m = &f.member;
            quote! { ::cancelcheck_model::pack::Transient::clear(&mut self.#m); }
        });
    let row = expand_row(input, &fields)?;
    let (imp, ty, wh) = input.generics.split_for_impl();
    Ok(quote! {
        #row
        impl #imp ::cancelcheck_model::pack::State for #name #ty #wh {
            fn pack_state(&self, __out: &mut ::std::vec::Vec<u8>) {
                #pack_flags
                #(#packs)*
            }
            fn unpack_state(
                &mut self,
                __r: &mut ::cancelcheck_model::pack::Reader<'_>,
            ) -> ::core::result::Result<(), ::cancelcheck_model::pack::PackError> {
                #unpack_flags
                #(#read_flags)*
                #(#unpacks)*
                #(#clears)*
                ::core::result::Result::Ok(())
            }
        }
    })
}

/// The row layout of a `State` type (see [`derive_state`]); nothing without `row = NAME`.
fn expand_row(input: &DeriveInput, fields: &[Field]) -> syn::Result<Tokens> {
    let name = &input.ident;
    let o = type_options(&input.attrs)?;
    let shape = named_struct(input, "State")?;
    let mut rows = Vec::new();
    for (f, a) in shape.iter().zip(fields) {
        let kind = field_options(&f.attrs)?.row;
        let span = f.ident.as_ref().map_or_else(Span::call_site, Ident::span);
        match (kind, packed(a), o.row.is_some()) {
            (Some(kind), true, true) => rows.push((a, kind)),
            (None, true, true) => {
                return Err(syn::Error::new(
                    span,
                    format!(
                        "field `{}` is part of the state but has no place in {}'s row: say how \
                         it sits there with #[state(row = KIND)]",
                        member_name(&a.member),
                        name
                    ),
                ));
            }
            (Some(_), false, _) => {
                return Err(syn::Error::new(
                    span,
                    "a field that is not part of the state (config, transient, scratch) has no \
                     place in a row",
                ));
            }
            (Some(_), true, false) => {
                return Err(syn::Error::new(
                    span,
                    "row = KIND on a field needs row = NAME and row_kinds = PATH on the type",
                ));
            }
            (None, _, _) => {}
        }
    }
    let Some(row) = &o.row else {
        return Ok(quote! {});
    };
    let Some(m) = &o.row_kinds else {
        return Err(syn::Error::new(
            row.span(),
            "row = NAME needs row_kinds = PATH (the module of the row's kinds)",
        ));
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            row.span(),
            "row = NAME: only types without generics",
        ));
    }
    let members: Vec<&Member> = rows.iter().map(|(f, _)| &f.member).collect();
    let consts: Vec<Ident> = rows
        .iter()
        .map(|(f, _)| format_ident!("{}", member_name(&f.member).to_uppercase()))
        .collect();
    let kinds: Vec<Tokens> = rows
        .iter()
        .map(|(f, kind)| {
            let ty = &f.ty;
            quote! { <#kind as #m::Kind<#ty>> }
        })
        .collect();
    let kind_tys = rows.iter().map(|(_, kind)| kind);
    let mut at = quote! { 0 };
    let mut offsets = Vec::new();
    for (c, k) in consts.iter().zip(&kinds) {
        offsets.push(at.clone());
        at = quote! { Self::#c + #k::SIZE };
    }
    let docs = rows.iter().map(|(f, _)| {
        format!(
            "Where the part of fixed size of `{}` sits in a row.",
            member_name(&f.member)
        )
    });
    let struct_doc = format!(
        "Where each field of [`{name}`] that is part of the state sits in a row of bytes: \
         derived from its declaration (each field's `#[state(row = KIND)]`)."
    );
    Ok(quote! {
        #[doc = #struct_doc]
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct #row {
            #( pub(crate) #members: #kind_tys, )*
        }

        #[allow(dead_code)]
        impl #row {
            #(
                #[doc = #docs]
                pub(crate) const #consts: usize = #offsets;
            )*
            /// The length of the head: every field's part of fixed size.
            pub(crate) const HEAD: usize = #at;

            /// Each field's kind, placed in declaration order.
            pub(crate) fn place(__p: &mut #m::Placer) -> ::core::option::Option<Self> {
                ::core::option::Option::Some(Self {
                    #( #members: #kinds::place(Self::#consts, __p)?, )*
                })
            }

            /// Writes every field of `__v` into the row (`None` if one does not fit).
            #[inline]
            pub(crate) fn put(
                &self,
                __v: &#name,
                __w: &mut #m::Writer<'_>,
            ) -> ::core::option::Option<()> {
                #( #kinds::put(&self.#members, Self::#consts, &__v.#members, __w)?; )*
                ::core::option::Option::Some(())
            }

            /// Reads every field of the row into `__v`.
            pub(crate) fn get(
                &self,
                __v: &mut #name,
                __r: &#m::Reader<'_>,
            ) -> ::core::result::Result<(), ::cancelcheck_model::pack::PackError> {
                #( #kinds::get(&self.#members, Self::#consts, &mut __v.#members, __r)?; )*
                ::core::result::Result::Ok(())
            }
        }
    })
}

fn member_name(m: &Member) -> String {
    match m {
        Member::Named(id) => id.to_string(),
        Member::Unnamed(i) => i.index.to_string(),
    }
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

fn expand_clone_state(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let shape = named_struct(input, "CloneState")?;
    let fields = fields_of(shape, true)?;
    let dirty_bits = type_options(&input.attrs)?.dirty_bits;
    let is_mask =
        |f: &Field| matches!((&f.member, &dirty_bits), (Member::Named(m), Some(d)) if m == d);
    let clones = fields.iter().map(|f| {
        let m = &f.member;
        if f.role == Role::Scratch {
            quote! { #m: ::core::default::Default::default() }
        } else if is_mask(f) {
            quote! { #m: !0 }
        } else {
            quote! { #m: ::core::clone::Clone::clone(&self.#m) }
        }
    });
    let (imp, ty, wh) = input.generics.split_for_impl();
    let Some(mask) = &dirty_bits else {
        let copies = fields.iter().filter(|f| f.role != Role::Scratch).map(|f| {
            let m = &f.member;
            quote! { ::core::clone::Clone::clone_from(&mut self.#m, &__src.#m); }
        });
        return Ok(quote! {
            impl #imp ::core::clone::Clone for #name #ty #wh {
                fn clone(&self) -> Self {
                    #name { #(#clones),* }
                }
                fn clone_from(&mut self, __src: &Self) {
                    #(#copies)*
                }
            }
        });
    };
    if !fields.iter().any(is_mask) {
        return Err(syn::Error::new(
            mask.span(),
            "dirty_bits: no field of that name",
        ));
    }
    let mut restores = Vec::new();
    for (f, a) in shape.iter().zip(&fields) {
        if a.role == Role::Scratch || is_mask(a) {
            continue;
        }
        let m = &a.member;
        restores.push(match field_options(&f.attrs)?.dirty {
            None => quote! { ::core::clone::Clone::clone_from(&mut self.#m, &__src.#m); },
            Some(DirtyBit::Whole(bit)) => quote! {
                if __d & (#bit) != 0 {
                    ::core::clone::Clone::clone_from(&mut self.#m, &__src.#m);
                }
            },
            Some(DirtyBit::Each(bits)) => quote! {
                for (__i, __bit) in (#bits).into_iter().enumerate() {
                    if __d & __bit != 0 {
                        ::core::clone::Clone::clone_from(&mut self.#m[__i], &__src.#m[__i]);
                    }
                }
            },
        });
    }
    Ok(quote! {
        impl #imp ::core::clone::Clone for #name #ty #wh {
            fn clone(&self) -> Self {
                #name { #(#clones),* }
            }
            fn clone_from(&mut self, __src: &Self) {
                self.#mask = !0;
                ::cancelcheck_model::pack::Restore::restore_from(self, __src);
            }
        }
        impl #imp ::cancelcheck_model::pack::Restore for #name #ty #wh {
            #[inline]
            fn restore_from(&mut self, __src: &Self) {
                let __d = self.#mask;
                #(#restores)*
                self.#mask = 0;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `#[derive(State)]` makes of `src`: its code, or its compile error.
    fn state(src: &str) -> Result<String, String> {
        let input: DeriveInput = syn::parse_str(src).expect("a type");
        expand_state(&input)
            .map(|t| t.to_string())
            .map_err(|e| e.to_string())
    }

    const ROW: &str = "#[state(row = R, row_kinds = kinds)]";

    /// A field that is part of the state and has no place in the row is a compile error
    /// naming it, so a field added to a type with a row can never be left out of it.
    #[test]
    fn a_field_of_the_state_without_a_place_in_the_row_does_not_compile() {
        let err = state(&format!(
            "{ROW} struct S {{ #[state(row = Byte)] a: u8, b: u8, #[state(config)] c: u8 }}"
        ))
        .expect_err("b has no place");
        assert!(
            err.contains("field `b`") && err.contains("row = KIND"),
            "{err}"
        );
        let err = state(&format!(
            "{ROW} struct S {{ #[state(row = Byte)] a: u8, #[state(nested)] w: W }}"
        ))
        .expect_err("w has no place");
        assert!(err.contains("field `w`"), "{err}");
        // Configuration and scratch are not part of the state: they have no place.
        let err = state(&format!(
            "{ROW} struct S {{ #[state(row = Byte)] a: u8, #[state(scratch, row = Byte)] c: u8 }}"
        ))
        .expect_err("scratch in a row");
        assert!(err.contains("not part of the state"), "{err}");
        let err = state("struct S { #[state(row = Byte)] a: u8 }").expect_err("no row");
        assert!(err.contains("row = NAME"), "{err}");
    }

    /// Every field of the state is placed, written and read, in declaration order, each at the
    /// end of the previous one's part of fixed size.
    #[test]
    fn every_field_of_the_state_is_in_the_row() {
        let code = state(&format!(
            "{ROW} struct S {{ #[state(row = Byte)] a: u8, #[state(config)] c: u8, \
             #[state(row = [Table; 2])] b: [V; 2] }}"
        ))
        .expect("compiles");
        let squash = |s: &str| s.split_whitespace().collect::<String>();
        let code = squash(&code);
        for want in [
            "pub(crate)structR{pub(crate)a:Byte,pub(crate)b:[Table;2],}",
            "pub(crate)constA:usize=0;",
            "pub(crate)constB:usize=Self::A+<Byteaskinds::Kind<u8>>::SIZE;",
            "pub(crate)constHEAD:usize=Self::B+<[Table;2]askinds::Kind<[V;2]>>::SIZE;",
            "<Byteaskinds::Kind<u8>>::put(&self.a,Self::A,&__v.a,__w)?;",
            "<[Table;2]askinds::Kind<[V;2]>>::put(&self.b,Self::B,&__v.b,__w)?;",
            "<[Table;2]askinds::Kind<[V;2]>>::get(&self.b,Self::B,&mut__v.b,__r)?;",
        ] {
            assert!(code.contains(&squash(want)), "{want} not in {code}");
        }
        assert!(!code.contains("__v.c"), "configuration in the row: {code}");
    }
}
