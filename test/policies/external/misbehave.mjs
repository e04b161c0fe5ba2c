// A process policy that plays action 0 until params.at, then misbehaves as params.mode says: 'exit'
// (exits with code 3, a line on stderr), 'hang' (never answers), 'invalid' (answers action 99),
// 'fraction' (answers 0.5), 'garbage' (a line that is not JSON); or 'protocol': answers the hello with
// protocol 2. With params.once (a file), it
// misbehaves only while that file does not exist, and creates it: a rerun plays through.
import fs from 'node:fs';
import readline from 'node:readline';

let params = {};
const send = (answer) => process.stdout.write(JSON.stringify(answer) + '\n');
for await (const line of readline.createInterface({ input: process.stdin })) {
  const message = JSON.parse(line);
  if (message.type === 'hello') {
    params = message.params;
    const due = params.mode === 'protocol' && !fs.existsSync(params.once);
    if (due) fs.writeFileSync(params.once, '');
    send({ type: 'ready', protocol: due ? 2 : 1 });
    continue;
  }
  if (message.type === 'end') {
    send({});
    break;
  }
  const due = message.type === 'select' && message.t === params.at && !(params.once !== undefined && fs.existsSync(params.once));
  if (due && params.once !== undefined) fs.writeFileSync(params.once, '');
  if (!due) send(message.type === 'select' ? { action: 0 } : {});
  else if (params.mode === 'exit') {
    process.stderr.write('misbehave: exiting on purpose\n');
    process.exit(3);
  } else if (params.mode === 'invalid') send({ action: 99 });
  else if (params.mode === 'fraction') send({ action: 0.5 });
  else if (params.mode === 'garbage') process.stdout.write('this is not JSON\n');
  // 'hang': no answer
}
