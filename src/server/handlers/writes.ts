/** Add, delete, modify and modify DN: not implemented yet (issue 6). They say so. */
import { ResultCode } from '../../store/index.js';
import type { OperationContext, Reply } from '../context.js';

export async function notYetWritable(_request: unknown, _context: OperationContext): Promise<Reply> {
  return { code: ResultCode.unwillingToPerform, message: 'this server does not accept writes yet' };
}
