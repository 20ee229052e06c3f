// tests/e2e/lib/viewers_json.cjs - the Node side of tests/e2e/viewers_json.sh:
// checks profconv's speedscope and .cpuprofile outputs with speedscope's own
// schema and importer (npm package speedscope, installed by
// scripts/setup-npm.sh into build/npm) and against pprof -raw totals.
//
//   node viewers_json.cjs check NPM_DIR SPEEDSCOPE CPUPROFILE PPROF_RAW COLUMN TICK_US REF
//
//   SPEEDSCOPE  profconv -t speedscope output (.speedscope.json)
//   CPUPROFILE  profconv -t cpuprofile output (.cpuprofile)
//   PPROF_RAW   `pprof -raw` of profconv's pprof output of the same input
//   COLUMN      the pprof sample type that the .cpuprofile counts
//   TICK_US     the microseconds one .cpuprofile sample stands for
//   REF         a .cpuprofile that `node --cpu-prof` wrote
//
// speedscope's npm package ships only its browser app (dist/release/
// speedscope-*.js, one esbuild bundle, an IIFE); its importer is not
// exported. We load that bundle in a Node vm context with a minimal browser
// shim (window, document, localStorage, matchMedia as inert stubs), cut off
// its last statement (the Preact render into document.body, after
// `console.log("speedscope v...")`) and take the function that the app's
// window.speedscope.loadFileFromBase64 calls, found by its call site
// (`loadFileFromBase64:(a,b)=>{this.loadProfile(()=>F(a,b))}`): F is
// importProfileGroupFromBase64(fileName, base64) of src/import/index.ts,
// the path every file the app opens takes (format detection by name and
// content, then the speedscope or Chrome importer).
//
// Prints one "ok"/"FAIL" line per check; exits 1 when one failed.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

let failures = 0;
function check(ok, what) {
	console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
	if (!ok) failures++;
}

// ---- speedscope's importer, in Node ----

function loadImporter(npmDir) {
	const dir = path.join(npmDir, 'node_modules/speedscope/dist/release');
	const bundle = fs.readdirSync(dir).find(f => /^speedscope-.*\.js$/.test(f));
	if (!bundle) throw new Error(`no speedscope-*.js bundle in ${dir}`);
	let src = fs.readFileSync(path.join(dir, bundle), 'utf8');
	const call = /loadFileFromBase64:\((\w+),(\w+)\)=>\{this\.loadProfile\(\(\)=>([\w$]+)\(\1,\2\)\)\}/.exec(src);
	const cut = src.lastIndexOf('console.log(`speedscope v');
	if (!call || cut < 0) throw new Error(`speedscope bundle ${bundle}: importer not found`);
	src = `${src.slice(0, cut)}globalThis.__importProfileGroupFromBase64=${call[3]};})();`;
	const inert = new Proxy(function () {}, {
		get: (target, key) => (key === Symbol.toPrimitive ? () => '' : inert),
		apply: () => inert,
		construct: () => inert,
	});
	const context = {
		console: { log() {}, warn() {}, error: console.error, info() {}, assert: console.assert },
		TextDecoder, TextEncoder, setTimeout, clearTimeout, URL, atob, btoa, WebAssembly,
		document: inert,
		navigator: { userAgent: 'node' },
		location: { hash: '', search: '', href: 'file:///' },
		localStorage: { getItem: () => null, setItem() {} },
		matchMedia: () => ({ matches: false, addEventListener() {}, addListener() {} }),
		addEventListener() {},
	};
	context.window = context.self = context.globalThis = context;
	vm.createContext(context);
	vm.runInContext(src, context, { filename: bundle });
	return context.__importProfileGroupFromBase64;
}

async function importFile(importer, file) {
	const group = await importer(path.basename(file), fs.readFileSync(file).toString('base64'));
	if (!group || !group.profiles || !group.profiles.length) throw new Error(`${file}: speedscope imported no profile`);
	return group.profiles.map(p => ({
		name: p.getName(),
		unit: p.getWeightUnit(),
		total: p.getTotalWeight(),
		nonIdle: p.getTotalNonIdleWeight(),
	}));
}

// ---- pprof -raw ----

// Columns {type, unit, dflt}, samples {values, labels}.
function parsePprofRaw(text) {
	const lines = text.split('\n');
	const at = lines.indexOf('Samples:');
	if (at < 0) throw new Error('pprof -raw: no Samples: section');
	const columns = lines[at + 1].trim().split(/\s+/).map(c => {
		const dflt = c.endsWith('[dflt]');
		const name = c.replace('[dflt]', ''), slash = name.lastIndexOf('/');
		return { type: name.slice(0, slash), unit: name.slice(slash + 1), dflt };
	});
	const branchy = new Set();
	for (const line of lines.slice(0, at)) {
		const m = /^Comment: (\S+) samples are (branch edges|call arcs)/.exec(line);
		if (m) branchy.add(m[1]);
	}
	const samples = [];
	for (let i = at + 2; i < lines.length; i++) {
		const line = lines[i];
		if (/^Locations/.test(line)) break;
		const m = /^\s+((?:-?\d+\s+)*-?\d+):/.exec(line);
		if (m) {
			samples.push({ values: m[1].trim().split(/\s+/).map(BigInt), labels: {} });
			continue;
		}
		if (!samples.length) continue;
		for (const l of line.matchAll(/(\w+):\[([^\]]*)\]/g))
			samples[samples.length - 1].labels[l[1]] = l[2];
	}
	return { columns, samples, branchy };
}

// Thread names as writers/thread_split.h makes them.
function threadNames(samples) {
	const anyPid = samples.some(s => 'pid' in s.labels), anyTid = samples.some(s => 'tid' in s.labels);
	return samples.map(s => {
		const comm = s.labels.comm, id = v => (v === undefined ? '?' : v.split(' ')[0]);
		if (comm === undefined && !('pid' in s.labels) && !('tid' in s.labels)) return '(no thread)';
		const pid = anyPid ? id(s.labels.pid) : '', tid = anyTid ? id(s.labels.tid) : '';
		const ids = pid && tid ? `${pid}/${tid}` : pid || tid;
		return [comm || '', ids].filter(x => x).join(' ');
	});
}

// ---- the checks ----

function checkSpeedscope(profiles, json, raw) {
	for (const [i, p] of profiles.entries()) {
		const written = json.profiles[i];
		check(p.total === written.endValue - written.startValue,
		      `speedscope '${p.name}': imported total ${p.total} = endValue ${written.endValue}`);
		check(p.nonIdle === p.total, `speedscope '${p.name}': its samples add up to it (${p.nonIdle})`);
	}
	const dflt = raw.columns.findIndex(c => c.dflt);
	const byThread = raw.samples.some(s => 'comm' in s.labels || 'pid' in s.labels || 'tid' in s.labels);
	if (!byThread) { // one profile per column
		for (const p of profiles) {
			const c = raw.columns.findIndex(col => col.type === p.name);
			if (c < 0 || raw.branchy.has(p.name)) continue;
			const sum = raw.samples.reduce((a, s) => a + s.values[c], 0n);
			check(BigInt(p.total) === sum, `speedscope '${p.name}' total ${p.total} = pprof -raw ${raw.columns[c].type} total ${sum}`);
		}
		const d = raw.columns[dflt];
		check(profiles.some(p => p.name === d.type), `speedscope has the default column '${d.type}'`);
		return;
	}
	// one profile per thread, of the default column
	const names = threadNames(raw.samples.filter(s => s.values[dflt] !== 0n));
	const expected = new Map();
	raw.samples.filter(s => s.values[dflt] !== 0n).forEach((s, i) => {
		expected.set(names[i], (expected.get(names[i]) || 0n) + s.values[dflt]);
	});
	const unit = { nanoseconds: 'nanoseconds', bytes: 'bytes', count: 'none' }[raw.columns[dflt].unit];
	check(profiles.length === expected.size, `speedscope: ${profiles.length} thread profiles = ${expected.size} threads in pprof -raw`);
	let all = 0n;
	for (const p of profiles) {
		all += BigInt(p.total);
		check(BigInt(p.total) === expected.get(p.name),
		      `speedscope thread '${p.name}' total ${p.total} = pprof -raw ${expected.get(p.name)}`);
		if (unit) check(p.unit === unit, `speedscope thread '${p.name}' unit ${p.unit} = ${unit}`);
	}
	const sum = raw.samples.reduce((a, s) => a + s.values[dflt], 0n);
	check(all === sum, `speedscope: all threads ${all} = pprof -raw ${raw.columns[dflt].type} total ${sum}`);
}

function typeOf(v) {
	return Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
}

function keyTypes(objects) {
	const types = new Map();
	for (const o of objects)
		for (const [k, v] of Object.entries(o)) types.set(k, typeOf(v));
	return types;
}

function checkCpuprofile(ours, ref, raw, column, tick, imported) {
	const timed = tick.startsWith('timed:'), tickUs = parseFloat(timed ? tick.slice(6) : tick);
	const keys = o => Object.keys(o).sort().join(',');
	check(keys(ours) === keys(ref), `cpuprofile top-level keys ${keys(ours)} = node's ${keys(ref)}`);
	for (const k of Object.keys(ref))
		check(typeOf(ours[k]) === typeOf(ref[k]), `cpuprofile '${k}' is a ${typeOf(ref[k])}`);
	const refNodes = keyTypes(ref.nodes), ourNodes = keyTypes(ours.nodes);
	for (const [k, t] of ourNodes)
		check(refNodes.get(k) === t, `cpuprofile node key '${k}' (${t}) as node writes it (${refNodes.get(k)})`);
	for (const k of ['id', 'callFrame', 'hitCount'])
		check(ours.nodes.every(n => k in n), `every cpuprofile node has '${k}'`);
	const refFrames = keyTypes(ref.nodes.map(n => n.callFrame));
	const ourFrames = keyTypes(ours.nodes.map(n => n.callFrame));
	check([...refFrames.keys()].sort().join() === [...ourFrames.keys()].sort().join(),
	      `callFrame keys ${[...ourFrames.keys()].sort()} = node's`);
	for (const [k, t] of refFrames)
		check(ourFrames.get(k) === t && ours.nodes.every(n => typeOf(n.callFrame[k]) === t),
		      `every callFrame.${k} is a ${t}`);
	check(ours.nodes.every(n => n.callFrame.lineNumber >= -1 && n.callFrame.columnNumber === -1 &&
				    Number.isInteger(n.callFrame.lineNumber)),
	      'lineNumber 0-based or -1, columnNumber -1');
	check(ours.nodes[0].callFrame.functionName === '(root)' && ours.nodes[0].id === 1, 'node 1 is (root)');
	const ids = new Map(ours.nodes.map(n => [n.id, n]));
	check(ids.size === ours.nodes.length, `node ids unique (${ids.size})`);
	const parents = new Map();
	let childrenOk = true;
	for (const n of ours.nodes)
		for (const c of n.children || []) {
			if (!ids.has(c) || parents.has(c) || c === n.id) childrenOk = false;
			parents.set(c, n.id);
		}
	check(childrenOk && parents.size === ours.nodes.length - 1 && !parents.has(1),
	      'children: every node but the root has one parent, every child is a node');
	check(ours.nodes.every(n => !n.children || n.children.length > 0), 'no empty children arrays (as V8)');
	check(ours.samples.every(s => ids.has(s)), `every sample (${ours.samples.length}) is a node id`);
	check(ours.timeDeltas.length === ours.samples.length, `timeDeltas length ${ours.timeDeltas.length} = samples length`);
	check(ours.timeDeltas.every(d => Number.isInteger(d) && d >= 0), 'timeDeltas are integers >= 0');
	const hits = ours.nodes.reduce((a, n) => a + n.hitCount, 0);
	check(hits === ours.samples.length, `sum of hitCount ${hits} = number of samples`);
	const perNode = new Map();
	for (const s of ours.samples) perNode.set(s, (perNode.get(s) || 0) + 1);
	check(ours.nodes.every(n => (perNode.get(n.id) || 0) === n.hitCount), 'each node\'s hitCount = its samples');
	const c = raw.columns.findIndex(col => col.type === column);
	if (c < 0) throw new Error(`pprof -raw has no sample type '${column}'`);
	const total = raw.samples.reduce((a, s) => a + s.values[c], 0n);
	check(BigInt(hits) === total, `cpuprofile samples ${hits} = pprof -raw ${column} total ${total}`);
	const span = ours.endTime - ours.startTime;
	const sumDeltas = ours.timeDeltas.reduce((a, d) => a + d, 0);
	if (timed) { // the input's sample times: deltas as they were, the last sample lasting a tick
		check(ours.timeDeltas.every(d => d >= 0), 'the timeDeltas (sample times) never go back');
		check(span === sumDeltas + Math.round(tickUs),
		      `endTime - startTime ${span} = first to last sample ${sumDeltas} + one tick ${tickUs} us`);
	} else {
		check(span === Math.round(hits * tickUs), `endTime - startTime ${span} = ${hits} samples x ${tickUs} us`);
	}
	check(sumDeltas <= span, `the samples (last at ${sumDeltas} us) lie within the span`);
	check(imported.length === 1, 'speedscope imports one profile from the .cpuprofile');
	check(imported[0].total === span, `speedscope's total of the .cpuprofile ${imported[0].total} us = endTime - startTime`);
	// speedscope's Chrome importer gives each sample the time to the next, the last none
	check(imported[0].nonIdle === sumDeltas - ours.timeDeltas[0],
	      `speedscope's non-idle time ${imported[0].nonIdle} us = first to last sample`);
	check(imported[0].unit === 'microseconds', 'speedscope reads it in microseconds');
}

async function main() {
	const [cmd, npmDir, speedscopeFile, cpuprofileFile, rawFile, column, tick, refFile] = process.argv.slice(2);
	if (cmd !== 'check' || !refFile) {
		console.error('usage: viewers_json.cjs check NPM_DIR SPEEDSCOPE CPUPROFILE PPROF_RAW COLUMN TICK_US REF');
		process.exit(2);
	}
	module.paths.unshift(path.join(npmDir, 'node_modules'));
	const Ajv = require('ajv');
	const schema = JSON.parse(fs.readFileSync(path.join(npmDir,
		'node_modules/speedscope/dist/release/file-format-schema.json'), 'utf8'));
	const validate = new Ajv({ allErrors: true }).compile(schema);
	const json = JSON.parse(fs.readFileSync(speedscopeFile, 'utf8'));
	check(validate(json), `speedscope output valid against speedscope's schema${validate.errors ?
		': ' + JSON.stringify(validate.errors.slice(0, 3)) : ''}`);
	const importer = loadImporter(npmDir);
	const raw = parsePprofRaw(fs.readFileSync(rawFile, 'utf8'));
	checkSpeedscope(await importFile(importer, speedscopeFile), json, raw);
	const ours = JSON.parse(fs.readFileSync(cpuprofileFile, 'utf8'));
	const ref = JSON.parse(fs.readFileSync(refFile, 'utf8'));
	checkCpuprofile(ours, ref, raw, column, tick, await importFile(importer, cpuprofileFile));
	process.exit(failures ? 1 : 0);
}

main().catch(e => {
	console.log(`FAIL ${e.stack || e}`);
	process.exit(1);
});
