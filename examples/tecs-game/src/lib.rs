//! The tecs example game.
