// cryptoaccel: userland access to cryptographic accelerators.
// Applications include this header only.
#pragma once

#include "cryptoaccel/algorithm.hpp"
#include "cryptoaccel/async.hpp"
#include "cryptoaccel/error.hpp"
#include "cryptoaccel/fips140_2.hpp"
#include "cryptoaccel/framework.hpp"
#include "cryptoaccel/kernel_crypto.hpp"
#include "cryptoaccel/profile.hpp"
#include "cryptoaccel/random.hpp"
#include "cryptoaccel/request.hpp"
#include "cryptoaccel/rsa.hpp"
#include "cryptoaccel/session.hpp"
#include "cryptoaccel/settings.hpp"
#include "cryptoaccel/version.hpp"
