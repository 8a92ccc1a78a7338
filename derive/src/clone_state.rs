//! `#[derive(CloneState)]`: `Clone` with a `clone_from` that copies into what the target
//! holds, and with `dirty_bits = FIELD` the `Restore` that copies back only what changed.

use crate::attrs::{DirtyBit, Role, field_options, type_options};
use crate::fields::{Field, fields_of, named_struct};
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::{DeriveInput, Member};

pub(crate) fn expand_clone_state(input: &DeriveInput) -> syn::Result<Tokens> {
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
