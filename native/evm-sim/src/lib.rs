//! revm behind N-API for chaind's simulations. One synchronous `call` runs one message on the JS
//! thread; every state read is a call back into JS (the same state view the JS simulation reads),
//! so nothing here holds chain state. Only compiled code is kept between calls: analysed bytecode
//! by code hash, which is exact because a hash names one code.
//!
//! The message and block context arrive packed in two byte arrays (layouts below, written by
//! src/execution/simulation/native-binding.ts) so a call converts two arguments instead of a dozen
//! fields; the callbacks' arguments and the call's outcome cross through a scratch array.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};
use std::{ptr, slice};

use napi::bindgen_prelude::{Function, Unknown};
use napi::{sys, Error, JsValue, Status};
use napi_derive::napi;
use revm::context::{BlockEnv, CfgEnv, Context, Journal, TxEnv};
use revm::context_interface::block::BlobExcessGasAndPrice;
use revm::context_interface::result::{EVMError, ExecutionResult, Output};
use revm::database_interface::{DBErrorMarker, Database};
use revm::handler::validation::validate_initial_tx_gas;
use revm::handler::EthPrecompiles;
use revm::interpreter::instructions::control;
use revm::interpreter::interpreter::EthInterpreter;
use revm::interpreter::{
    Instruction, InstructionContext, InstructionExecResult, InstructionResult,
};
use revm::precompile::{PrecompileSpecId, Precompiles};
use revm::primitives::hardfork::SpecId;
use revm::primitives::{
    Address, Bytes, StorageKey, StorageValue, TxKind, B256, KECCAK_EMPTY, U256,
};
use revm::state::{AccountInfo, Bytecode};
use revm::{ExecuteEvm, MainBuilder, MainnetEvm};

mod block;

/// The layouts and statuses below; the binding refuses an addon of another version (a stale build).
const ABI_VERSION: u32 = 3;

/// What `call` expects and answers (see ABI_VERSION).
#[napi]
pub fn abi_version() -> u32 {
    ABI_VERSION
}

/// `tx`: from[20] hasTo[1] to[20] value[32] gasLimit[8] gasPrice[16], big-endian.
const TX_LEN: usize = 97;
/// `block`: number[8] timestamp[8] coinbase[20] basefee[8] gasLimit[8] prevrandao[32] chainId[8]
/// spec[1] (0 Prague, 1 Osaka), big-endian.
pub(crate) const BLOCK_LEN: usize = 93;
/// An account from the `account` callback: balance[32] nonce[8] codeHash[32].
const ACCOUNT_LEN: usize = 72;
/// Code kept at most, in bytes (a contract is up to 24 KB, its analysis a bit more); the whole
/// cache is dropped when it is full, a simple bound for a cache that mostly serves hot contracts.
const CODE_CACHE_BYTES: usize = 32 << 20;

thread_local! {
    /// analysed code by code hash, and the bytes of code it holds
    static CODE: RefCell<(HashMap<B256, Bytecode>, usize)> = RefCell::new((HashMap::new(), 0));
}

#[derive(Debug)]
pub(crate) struct HostError {
    /// the JS callback threw: its exception is pending and is what the caller gets
    pub(crate) js: bool,
    pub(crate) message: String,
}
impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for HostError {}
impl DBErrorMarker for HostError {}

pub(crate) fn fault(message: String) -> HostError {
    HostError { js: false, message }
}

/// The JS side of one call: its env and the four callbacks, valid only while that call runs (the
/// values live in its handle scope). Raw handles, so the EVM holding them can outlive the call.
#[derive(Clone, Copy)]
pub(crate) struct Callbacks {
    pub(crate) env: sys::napi_env,
    /// the caller's scratch array (off-heap, so it stays put): a callback's arguments go here
    pub(crate) scratch: *mut u8,
    pub(crate) account: sys::napi_value,
    pub(crate) code: sys::napi_value,
    pub(crate) storage: sys::napi_value,
    pub(crate) block_hash: sys::napi_value,
}

impl Callbacks {
    pub(crate) const NONE: Callbacks = Callbacks {
        env: ptr::null_mut(),
        scratch: ptr::null_mut(),
        account: ptr::null_mut(),
        code: ptr::null_mut(),
        storage: ptr::null_mut(),
        block_hash: ptr::null_mut(),
    };

    /// Calls `f` with byte-array arguments; `read` gets the answer's bytes (None: null/undefined)
    /// inside a handle scope of its own, so a long call does not pile up handles.
    fn call<T>(
        &self,
        f: sys::napi_value,
        args: &[&[u8]],
        read: impl FnOnce(Option<&[u8]>) -> Result<T, HostError>,
    ) -> Result<T, HostError> {
        let env = self.env;
        unsafe {
            let mut scope = ptr::null_mut();
            if sys::napi_open_handle_scope(env, &mut scope) != sys::Status::napi_ok {
                return Err(fault("no handle scope".into()));
            }
            let out = self.call_in_scope(f, args, read);
            sys::napi_close_handle_scope(env, scope);
            out
        }
    }

    unsafe fn call_in_scope<T>(
        &self,
        f: sys::napi_value,
        args: &[&[u8]],
        read: impl FnOnce(Option<&[u8]>) -> Result<T, HostError>,
    ) -> Result<T, HostError> {
        let env = self.env;
        let mut at = 0;
        for a in args {
            ptr::copy_nonoverlapping(a.as_ptr(), self.scratch.add(at), a.len());
            at += a.len();
        }
        let mut undefined = ptr::null_mut();
        sys::napi_get_undefined(env, &mut undefined);
        let mut result = ptr::null_mut();
        let status = sys::napi_call_function(env, undefined, f, 0, ptr::null(), &mut result);
        if status != sys::Status::napi_ok {
            let mut pending = false;
            sys::napi_is_exception_pending(env, &mut pending);
            return Err(HostError {
                js: pending,
                message: "state callback failed".into(),
            });
        }
        let mut kind = 0;
        sys::napi_typeof(env, result, &mut kind);
        if kind == sys::ValueType::napi_null || kind == sys::ValueType::napi_undefined {
            return read(None);
        }
        let (mut ty, mut len, mut data, mut buffer, mut offset) =
            (0, 0, ptr::null_mut(), ptr::null_mut(), 0);
        let status = sys::napi_get_typedarray_info(
            env,
            result,
            &mut ty,
            &mut len,
            &mut data,
            &mut buffer,
            &mut offset,
        );
        if status != sys::Status::napi_ok || ty != sys::TypedarrayType::uint8_array {
            return Err(fault(
                "a state callback answered something other than a Uint8Array".into(),
            ));
        }
        let bytes: &[u8] = if len == 0 {
            &[]
        } else {
            slice::from_raw_parts(data.cast(), len)
        };
        read(Some(bytes))
    }
}

/// revm's database: every read is a JS callback.
pub(crate) struct Host {
    pub(crate) js: Callbacks,
    /// addresses whose code hash was not in the cache, by hash (for code_by_hash)
    pub(crate) uncached: HashMap<B256, Address>,
    /// callbacks made in this call
    pub(crate) reads: u32,
    /// the code hash each account had when first read (absent accounts: none), so a block's
    /// transaction reports code only where it changed
    pub(crate) loaded_code: HashMap<Address, B256>,
}

impl Host {
    pub(crate) fn new(js: Callbacks) -> Host {
        Host {
            js,
            uncached: HashMap::new(),
            reads: 0,
            loaded_code: HashMap::new(),
        }
    }
}

/// An EVM of `spec` from `pool` (one kept per spec, reused call after call: building one costs
/// more than a cheap call), or a new one. Taken out while it runs: a callback that called back in
/// would find none and build its own.
pub(crate) fn take_evm<E>(
    pool: &'static std::thread::LocalKey<RefCell<Vec<(SpecId, E)>>>,
    spec: SpecId,
    make: fn(SpecId) -> E,
) -> E {
    pool.with(|e| {
        let mut e = e.borrow_mut();
        let i = e.iter().position(|(s, _)| *s == spec)?;
        Some(e.swap_remove(i).1)
    })
    .unwrap_or_else(|| make(spec))
}

impl Database for Host {
    type Error = HostError;

    fn basic(&mut self, address: Address) -> Result<Option<AccountInfo>, HostError> {
        self.reads += 1;
        let js = self.js;
        let info = js.call(js.account, &[address.as_slice()], |raw| {
            let Some(raw) = raw else { return Ok(None) };
            if raw.len() != ACCOUNT_LEN {
                return Err(fault(format!("account of {address}: {} bytes", raw.len())));
            }
            Ok(Some((
                U256::from_be_slice(&raw[..32]),
                u64::from_be_bytes(raw[32..40].try_into().unwrap()),
                B256::from_slice(&raw[40..72]),
            )))
        })?;
        let Some((balance, nonce, code_hash)) = info else {
            return Ok(None);
        };
        self.loaded_code.insert(address, code_hash);
        let code = if code_hash == KECCAK_EMPTY {
            Some(Bytecode::default())
        } else {
            CODE.with(|c| c.borrow().0.get(&code_hash).cloned())
        };
        if code.is_none() {
            self.uncached.insert(code_hash, address);
        }
        Ok(Some(AccountInfo {
            balance,
            nonce,
            code_hash,
            code,
            ..Default::default()
        }))
    }

    fn code_by_hash(&mut self, code_hash: B256) -> Result<Bytecode, HostError> {
        if let Some(code) = CODE.with(|c| c.borrow().0.get(&code_hash).cloned()) {
            return Ok(code);
        }
        let Some(address) = self.uncached.get(&code_hash).copied() else {
            return Err(fault(format!("code {code_hash} of no loaded account")));
        };
        self.reads += 1;
        let js = self.js;
        let code = js.call(js.code, &[address.as_slice()], |raw| {
            Ok(Bytecode::new_raw(Bytes::copy_from_slice(
                raw.unwrap_or_default(),
            )))
        })?;
        CODE.with(|c| {
            let (map, bytes) = &mut *c.borrow_mut();
            let size = code.len() + 64;
            if *bytes + size > CODE_CACHE_BYTES {
                map.clear();
                *bytes = 0;
            }
            map.insert(code_hash, code.clone());
            *bytes += size;
        });
        Ok(code)
    }

    fn storage(&mut self, address: Address, index: StorageKey) -> Result<StorageValue, HostError> {
        self.reads += 1;
        let key = index.to_be_bytes::<32>();
        let js = self.js;
        js.call(js.storage, &[address.as_slice(), &key[..]], |raw| {
            let raw = raw.unwrap_or_default();
            if raw.len() > 32 {
                return Err(fault(format!("storage of {address}: {} bytes", raw.len())));
            }
            Ok(U256::from_be_slice(raw))
        })
    }

    fn block_hash(&mut self, number: u64) -> Result<B256, HostError> {
        self.reads += 1;
        let js = self.js;
        js.call(js.block_hash, &[&number.to_be_bytes()[..]], |raw| {
            Ok(match raw {
                Some(h) if h.len() == 32 => B256::from_slice(h),
                _ => B256::ZERO,
            })
        })
    }
}

pub(crate) type SimCtx = Context<BlockEnv, TxEnv, CfgEnv, Host, Journal<Host>, ()>;
type SimEvm = MainnetEvm<SimCtx>;

/// How long one call may hold the JS thread. The JS EVM yields to the event loop every 8 ms of a
/// long call; this one cannot, so a call still running after that is given up (status 4) and run
/// again on the JS EVM, which yields and applies the request's deadline.
const SLICE: Duration = Duration::from_millis(8);

thread_local! {
    static JUMPS: Cell<u32> = const { Cell::new(0) };
    static SLICE_END: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Why this call's result is to be dropped and the call run by the JS EVM: 0 it is not,
    /// GIVE_UP_SLOW
    static GIVE_UP: Cell<u8> = const { Cell::new(0) };
}

const GIVE_UP_SLOW: u8 = 4;

/// The spec's precompiles, point evaluation (0x0a) included: revm's own, pure-Rust (arkworks) KZG
/// verification answers as the JS EVM's does (the parity test covers valid and bad inputs).
pub(crate) fn precompiles(spec: SpecId) -> &'static Precompiles {
    Precompiles::new(PrecompileSpecId::from_spec_id(spec))
}

/// Every loop jumps: the clock is read every 1024th jump, as deadline.ts does. Past the slice every
/// further jump halts its frame, so the call unwinds at once; its result is dropped.
fn within_slice() -> Result<(), InstructionResult> {
    if GIVE_UP.with(Cell::get) != 0 {
        return Err(InstructionResult::OutOfGas);
    }
    let n = JUMPS.with(|j| {
        let n = j.get().wrapping_add(1);
        j.set(n);
        n
    });
    if n & 1023 == 0
        && SLICE_END
            .with(Cell::get)
            .is_some_and(|end| Instant::now() > end)
    {
        GIVE_UP.with(|g| g.set(GIVE_UP_SLOW));
        return Err(InstructionResult::OutOfGas);
    }
    Ok(())
}

fn timed_jump(ctx: InstructionContext<'_, SimCtx, EthInterpreter>) -> InstructionExecResult {
    within_slice()?;
    control::jump(ctx)
}

fn timed_jumpi(ctx: InstructionContext<'_, SimCtx, EthInterpreter>) -> InstructionExecResult {
    within_slice()?;
    control::jumpi(ctx)
}

thread_local! {
    /// One EVM per spec, reused call after call: building one (frame stacks, instruction table) costs
    /// more than a cheap call. Between calls it holds no callbacks and an empty journal.
    static EVMS: RefCell<Vec<(SpecId, SimEvm)>> = const { RefCell::new(Vec::new()) };
}

pub(crate) fn be_u64(b: &[u8]) -> u64 {
    u64::from_be_bytes(b.try_into().unwrap())
}

/// A Uint8Array holding a copy of `bytes` (a plain one: a Node Buffer costs a prototype change).
pub(crate) unsafe fn uint8_array(
    env: sys::napi_env,
    bytes: &[u8],
) -> napi::Result<sys::napi_value> {
    let mut data = ptr::null_mut();
    let mut buffer = ptr::null_mut();
    check(sys::napi_create_arraybuffer(
        env,
        bytes.len(),
        &mut data,
        &mut buffer,
    ))?;
    if !bytes.is_empty() {
        ptr::copy_nonoverlapping(bytes.as_ptr(), data.cast::<u8>(), bytes.len());
    }
    let mut array = ptr::null_mut();
    check(sys::napi_create_typedarray(
        env,
        sys::TypedarrayType::uint8_array,
        bytes.len(),
        buffer,
        0,
        &mut array,
    ))?;
    Ok(array)
}

pub(crate) unsafe fn string(env: sys::napi_env, s: &str) -> napi::Result<sys::napi_value> {
    let mut v = ptr::null_mut();
    check(sys::napi_create_string_utf8(
        env,
        s.as_ptr().cast(),
        s.len() as isize,
        &mut v,
    ))?;
    Ok(v)
}

/// The bytes of a Uint8Array, writable: the caller's scratch array, which only this call uses while it runs.
pub(crate) unsafe fn bytes_of<'a>(
    env: sys::napi_env,
    value: sys::napi_value,
) -> napi::Result<&'a mut [u8]> {
    let (mut ty, mut len, mut data, mut buffer, mut offset) =
        (0, 0, ptr::null_mut(), ptr::null_mut(), 0);
    check(sys::napi_get_typedarray_info(
        env,
        value,
        &mut ty,
        &mut len,
        &mut data,
        &mut buffer,
        &mut offset,
    ))?;
    if ty != sys::TypedarrayType::uint8_array || len == 0 {
        return Err(Error::new(
            Status::InvalidArg,
            "scratch is not a Uint8Array".to_string(),
        ));
    }
    Ok(slice::from_raw_parts_mut(data.cast(), len))
}

fn check(status: sys::napi_status) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(
            Status::GenericFailure,
            format!("N-API status {status}"),
        ))
    }
}

/// What one call ended as, written to scratch[0..16]: status[1] (0 success, 1 revert, 2 halt,
/// 3 the message could not run, 4 given up after its time slice), 3 bytes unused, reads[4] (state
/// callbacks made), gasUsed[8] (before refunds, intrinsic gas included), little-endian.
fn write_outcome(scratch: &mut [u8], status: u8, reads: u32, gas_used: u64) {
    scratch[0] = status;
    scratch[4..8].copy_from_slice(&reads.to_le_bytes());
    scratch[8..16].copy_from_slice(&gas_used.to_le_bytes());
}

/// The smallest scratch array: the outcome, or a storage callback's address and slot.
pub(crate) const SCRATCH_LEN: usize = 64;

/// The checked common arguments of `call` and `execute`: the spec, block env and chain id packed
/// in `block` (layout above; `specs` the spec bytes the caller serves), and the callbacks with
/// their scratch array.
#[allow(clippy::too_many_arguments)]
pub(crate) fn enter(
    raw_env: sys::napi_env,
    tx: (&[u8], usize),
    block: &[u8],
    specs: &[SpecId],
    scratch: Unknown,
    account: &Function<Unknown, Unknown>,
    code: &Function<Unknown, Unknown>,
    storage: &Function<Unknown, Unknown>,
    block_hash: &Function<Unknown, Unknown>,
) -> napi::Result<(SpecId, BlockEnv, u64, Callbacks)> {
    let scratch = unsafe { bytes_of(raw_env, scratch.raw())? };
    if tx.0.len() != tx.1 || block.len() != BLOCK_LEN || scratch.len() < SCRATCH_LEN {
        return Err(Error::new(
            Status::InvalidArg,
            format!(
                "tx {} / block {} / scratch {} bytes",
                tx.0.len(),
                block.len(),
                scratch.len()
            ),
        ));
    }
    let spec = match specs.get(block[92] as usize) {
        Some(s) => *s,
        None => {
            return Err(Error::new(
                Status::InvalidArg,
                format!("unknown spec {}", block[92]),
            ))
        }
    };
    let js = Callbacks {
        env: raw_env,
        scratch: scratch.as_mut_ptr(),
        account: account.raw(),
        code: code.raw(),
        storage: storage.raw(),
        block_hash: block_hash.raw(),
    };
    let block_env = BlockEnv {
        number: U256::from(be_u64(&block[0..8])),
        timestamp: U256::from(be_u64(&block[8..16])),
        beneficiary: Address::from_slice(&block[16..36]),
        basefee: be_u64(&block[36..44]),
        gas_limit: be_u64(&block[44..52]),
        difficulty: U256::ZERO,
        prevrandao: Some(B256::from_slice(&block[52..84])),
        blob_excess_gas_and_price: Some(BlobExcessGasAndPrice::new_with_spec(0, spec)),
        ..Default::default()
    };
    Ok((spec, block_env, be_u64(&block[84..92]), js))
}

/// Runs one message (see the layouts above) and undoes it. The callbacks take no arguments: each
/// finds its own in `scratch` (account, code: the address in [0..20]; storage: the address, then the
/// slot in [20..52]; blockHash: the height in [0..8], big-endian). Answers the return or revert
/// data (a Uint8Array), or the halt reason / why the message could not run (a string), with the
/// outcome in scratch (write_outcome). A callback's exception is rethrown.
#[napi(catch_unwind)]
#[allow(clippy::too_many_arguments)]
pub fn call(
    env: napi::Env,
    tx: &[u8],
    block: &[u8],
    data: &[u8],
    scratch: Unknown,
    account: Function<Unknown, Unknown>,
    code: Function<Unknown, Unknown>,
    storage: Function<Unknown, Unknown>,
    block_hash: Function<Unknown, Unknown>,
) -> napi::Result<Unknown<'static>> {
    let raw_env = env.raw();
    let (spec, block_env, chain_id, js) = enter(
        raw_env,
        (tx, TX_LEN),
        block,
        &[SpecId::PRAGUE, SpecId::OSAKA],
        scratch,
        &account,
        &code,
        &storage,
        &block_hash,
    )?;
    let scratch = unsafe { slice::from_raw_parts_mut(js.scratch, SCRATCH_LEN) };
    let tx_env = TxEnv {
        tx_type: 0,
        caller: Address::from_slice(&tx[0..20]),
        kind: if tx[20] == 1 {
            TxKind::Call(Address::from_slice(&tx[21..41]))
        } else {
            TxKind::Create
        },
        value: U256::from_be_slice(&tx[41..73]),
        gas_limit: be_u64(&tx[73..81]),
        gas_price: u128::from_be_bytes(tx[81..97].try_into().unwrap()),
        data: Bytes::copy_from_slice(data),
        chain_id: None,
        ..Default::default()
    };
    // intrinsic gas and the EIP-7623 floor are checked here and the floor is then off: the JS EVM's
    // eth_call refuses a gas limit below either, and reports the gas used without the floor
    if let Err(e) = validate_initial_tx_gas(&tx_env, spec, false, false, u64::MAX, None) {
        write_outcome(scratch, 3, 0, 0);
        return unsafe {
            Ok(Unknown::from_raw_unchecked(
                raw_env,
                string(raw_env, &e.to_string())?,
            ))
        };
    }
    let mut evm = take_evm(&EVMS, spec, new_evm);
    evm.ctx.cfg.chain_id = chain_id;
    evm.ctx.block = block_env;
    evm.ctx.journaled_state.database = Host::new(js);
    JUMPS.with(|j| j.set(0));
    GIVE_UP.with(|g| g.set(0));
    SLICE_END.with(|e| e.set(Some(Instant::now() + SLICE)));
    let result = evm.transact(tx_env);
    SLICE_END.with(|e| e.set(None));
    let reads = evm.ctx.journaled_state.database.reads;
    evm.ctx.journaled_state.database.js = Callbacks::NONE;
    let (status, gas_used, bytes, error) = match result {
        Ok(r) => match r.result {
            ExecutionResult::Success { gas, output, .. } => {
                let bytes = match output {
                    Output::Call(b) => b,
                    Output::Create(b, _) => b,
                };
                (0, gas.total_gas_spent(), bytes, None)
            }
            ExecutionResult::Revert { gas, output, .. } => (1, gas.total_gas_spent(), output, None),
            ExecutionResult::Halt { reason, gas, .. } => (
                2,
                gas.total_gas_spent(),
                Bytes::new(),
                Some(format!("{reason:?}")),
            ),
        },
        // an abandoned run is not reused (as the JS pool drops a VM whose run threw)
        Err(EVMError::Database(e)) => {
            let status = if e.js {
                Status::PendingException
            } else {
                Status::GenericFailure
            };
            return Err(Error::new(status, e.message));
        }
        Err(e) => (3, 0, Bytes::new(), Some(e.to_string())),
    };
    keep(spec, evm);
    let status = match GIVE_UP.with(Cell::get) {
        0 => status,
        reason => reason,
    };
    write_outcome(scratch, status, reads, gas_used);
    unsafe {
        let value = match error {
            Some(e) => string(raw_env, &e)?,
            None => uint8_array(raw_env, &bytes)?,
        };
        Ok(Unknown::from_raw_unchecked(raw_env, value))
    }
}

fn new_evm(spec: SpecId) -> SimEvm {
    let host = Host::new(Callbacks::NONE);
    let mut cfg = CfgEnv::new_with_spec(spec);
    cfg.disable_nonce_check = true;
    cfg.disable_balance_check = true;
    cfg.disable_block_gas_limit = true;
    cfg.disable_eip3607 = true;
    cfg.disable_eip7623 = true;
    cfg.tx_gas_limit_cap = Some(u64::MAX);
    let mut evm = SimCtx::new(host, spec).with_cfg(cfg).build_mainnet();
    evm.precompiles = EthPrecompiles {
        precompiles: precompiles(spec),
        spec,
    };
    let jump = Instruction::new(timed_jump);
    let jumpi = Instruction::new(timed_jumpi);
    for (opcode, instruction) in [(0x56u8, jump), (0x57u8, jumpi)] {
        let gas = evm.instruction.gas_table()[opcode as usize];
        evm.instruction.insert_instruction(opcode, instruction, gas);
    }
    evm
}

fn keep(spec: SpecId, evm: SimEvm) {
    EVMS.with(|e| e.borrow_mut().push((spec, evm)));
}
