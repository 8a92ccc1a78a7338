//! `#[derive(Finite)]`: the numbering of a small type's values.

use crate::fields::{Field, build, fields_of, no_unions};
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::{Data, DeriveInput, Fields, Type};

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

pub(crate) fn expand_finite(input: &DeriveInput) -> syn::Result<Tokens> {
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
