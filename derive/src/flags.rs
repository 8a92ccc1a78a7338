//! The flag group: fields of type `bool` (one bit) and `Option<bool>` (two bits) packed
//! together as little-endian bytes, and read back refusing bits no field uses.

use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::{GenericArgument, PathArguments, Type};

/// How many flag bits a field of this type takes in the flag group (0: not a flag).
pub(crate) fn flag_width(ty: &Type) -> u32 {
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

/// Code that appends the flag group of `flags` (each `(value expression, width)`).
pub(crate) fn pack_flags(flags: &[(Tokens, u32)]) -> Tokens {
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
pub(crate) fn unpack_flags(flags_bits: u32, what: &str) -> Tokens {
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
pub(crate) fn flag_value(width: u32, shift: u32, what: &str) -> Tokens {
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
