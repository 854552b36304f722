# Spec-faithful APNG reference for 8-bit RGBA files: inflate, unfilter, composite (premultiplied floats).
import struct, zlib, sys
def frames(path):
    d=open(path,'rb').read(); i=8; chunks=[]
    while i<len(d):
        l,t=struct.unpack('>I4s',d[i:i+8]); chunks.append((t,d[i+8:i+8+l])); i+=12+l
    W,H,bd,ct=struct.unpack('>IIBB',chunks[0][1][:10]); assert bd==8 and ct==6
    fr=[]; cur=None; seen_idat=False
    for t,b in chunks:
        if t==b'fcTL':
            _,w,h,x,y,n,den,do,bo=struct.unpack('>IIIIIHHBB',b); cur={'w':w,'h':h,'x':x,'y':y,'do':do,'bo':bo,'data':b''}; fr.append(cur)
        elif t==b'IDAT':
            if cur is not None and not seen_idat: cur['data']+=b
            seen_idat=True
        elif t==b'fdAT': cur['data']+=b[4:]
    canvas=[[0.0]*4 for _ in range(W*H)]; out=[]
    for k,f in enumerate(fr):
        w,h=f['w'],f['h']; raw=zlib.decompress(f['data']); stride=w*4; prev=bytearray(stride); rows=[]
        for r in range(h):
            ft=raw[r*(stride+1)]; line=bytearray(raw[r*(stride+1)+1:(r+1)*(stride+1)])
            for c in range(stride):
                a=line[c-4] if c>=4 else 0; b=prev[c]; cc=prev[c-4] if c>=4 else 0
                if ft==1: line[c]=(line[c]+a)&255
                elif ft==2: line[c]=(line[c]+b)&255
                elif ft==3: line[c]=(line[c]+(a+b)//2)&255
                elif ft==4:
                    p=a+b-cc; pa,pb,pc=abs(p-a),abs(p-b),abs(p-cc)
                    line[c]=(line[c]+(a if pa<=pb and pa<=pc else b if pb<=pc else cc))&255
            rows.append(line); prev=line
        do=f['do']
        if k==0 and do==2: do=1
        saved=[list(canvas[(f['y']+r)*W+f['x']+c]) for r in range(h) for c in range(w)] if do==2 else None
        for r in range(h):
            for c in range(w):
                s=rows[r][c*4:c*4+4]; sa=s[3]/255; src=[s[0]*sa,s[1]*sa,s[2]*sa,float(s[3])]
                idx=(f['y']+r)*W+f['x']+c
                if f['bo']==0: canvas[idx]=src
                else: canvas[idx]=[src[j]+canvas[idx][j]*(1-sa) for j in range(4)]
        out.append(bytes(int(min(255,round(v))) for px in canvas for v in px))
        if do==1:
            for r in range(h):
                for c in range(w): canvas[(f['y']+r)*W+f['x']+c]=[0.0]*4
        elif do==2:
            for r in range(h):
                for c in range(w): canvas[(f['y']+r)*W+f['x']+c]=saved[r*w+c]
    return out
# Writes pillow-N.rgba next to each pillow-N.png.
for v in range(4):
    fs=frames(f"pillow-{v}.png")
    open(f"pillow-{v}.rgba","wb").write(b''.join(fs)); print(v,len(fs))
