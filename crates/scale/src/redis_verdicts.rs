//! The verdict and DNS-answer cache shared on Redis.
