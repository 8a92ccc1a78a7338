//! `#[derive(State)]`: a stateful struct's packed form (the fields its roles say are part of
//! the state), and with `row = NAME` the layout of its row of bytes.

use crate::attrs::{Role, field_options, type_options};
use crate::fields::{Field, fields_of, member_name, named_struct};
use crate::flags::{flag_value, flag_width, pack_flags, unpack_flags};
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::{DeriveInput, Ident, Member};

fn packed(f: &Field) -> bool {
    matches!(f.role, Role::Plain | Role::Nested | Role::Custom)
}

pub(crate) fn expand_state(input: &DeriveInput) -> syn::Result<Tokens> {
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

/// The row layout of a `State` type (see [`derive_state`](crate::derive_state)); nothing
/// without `row = NAME`.
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
